import { TextDocument } from 'vscode-languageserver-textdocument';

/** The server's DocumentSource for in-process tests: documents opened by the test, each reopen a new version. */
export class InMemoryDocuments {
  private readonly map = new Map<string, TextDocument>();
  get(uri: string) {
    return this.map.get(uri);
  }
  all() {
    return [...this.map.values()];
  }
  open(uri: string, languageId: string, text: string): TextDocument {
    const document = TextDocument.create(uri, languageId, (this.map.get(uri)?.version ?? 0) + 1, text);
    this.map.set(uri, document);
    return document;
  }
}
