/**
 * An answer in an OpenAI-compatible API's own shape: a JSON object (its errors too are `{"error": ...}`), not an
 * HTML page, plain text or a bare JSON value. The chat and embeddings clients count any other answer as a failure
 * of the endpoint (a proxy's page, a wrong URL), not as the model's reply.
 */
export function isApiJson(text: string): boolean {
  try {
    const parsed = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
