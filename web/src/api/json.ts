/** A free-form JSON object for a body field the spec declares only as `type: object`
 *  (openapi-typescript types those as `Record<string, never>`). */
export function jsonObject(value: Record<string, unknown>): Record<string, never> {
  return value as Record<string, never>;
}
