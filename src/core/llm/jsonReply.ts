/**
 * The JSON object in a model's reply, wherever the model put it: in a ```json fence (closed or not), bare, or
 * amid prose. ROSE's order: the first fence, else an unclosed fence, else the text from the first `{` to the
 * last `}`, else the whole text. Reasoning models' `<think>` blocks are dropped first. Where that candidate is
 * no JSON object, every balanced `{...}` in the text is tried, last first (the answer usually ends a reply).
 */
export type JsonReply = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

const FENCE = /```[ \t]*(?:json|js|javascript|txt|text)?[ \t]*\r?\n?([\s\S]*?)```/i;
const UNCLOSED_FENCE = /```[ \t]*(?:json|js|javascript|txt|text)?[ \t]*\r?\n?([\s\S]*)$/i;

function asObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Every top-level balanced `{...}` span (strings and escapes respected), in order. */
function balancedObjects(text: string): string[] {
  const spans: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"' && depth > 0) inString = true;
    else if (c === '{') {
      if (depth++ === 0) start = i;
    } else if (c === '}' && depth > 0 && --depth === 0) spans.push(text.slice(start, i + 1));
  }
  return spans;
}

export function extractJsonObject(reply: string): JsonReply {
  const text = reply.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  if (text === '') return { ok: false, error: 'the reply is empty' };
  const fenced = FENCE.exec(text)?.[1] ?? UNCLOSED_FENCE.exec(text)?.[1];
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  const candidate = fenced?.trim() ?? (first !== -1 && last > first ? text.slice(first, last + 1) : text);
  const direct = asObject(candidate);
  if (direct) return { ok: true, value: direct };
  const spans = balancedObjects(text);
  for (let i = spans.length - 1; i >= 0; i--) {
    const value = asObject(spans[i]);
    if (value) return { ok: true, value };
  }
  let reason: string;
  try {
    JSON.parse(candidate);
    reason = 'it is JSON, but no object';
  } catch (error) {
    reason = (error as Error).message;
  }
  return { ok: false, error: `no JSON object in the reply (${reason})` };
}

/**
 * A boolean field: JSON true/false, or exactly the strings "true"/"false" (any case). Anything else is no
 * answer: ROSE's Python truthiness would take the string "false" for true.
 */
export function booleanField(value: Record<string, unknown>, key: string): boolean | undefined {
  const field = value[key];
  if (typeof field === 'boolean') return field;
  if (typeof field === 'string' && /^\s*(true|false)\s*$/i.test(field)) return field.trim().toLowerCase() === 'true';
  return undefined;
}

/** A text field; numbers and booleans as text, anything else (missing, an object) as ''. */
export function textField(value: Record<string, unknown>, key: string): string {
  const field = value[key];
  if (typeof field === 'string') return field;
  if (typeof field === 'number' || typeof field === 'boolean') return String(field);
  return '';
}
