/** The MCP endpoint of this server, as the browser reaches it. */
export function mcpUrl(origin = globalThis.location.origin): string {
  return `${origin}/mcp`;
}

/** A client configuration (Claude Desktop, Cursor, the MCP SDKs all read this shape). */
export function mcpConfig(url: string, key: string): string {
  return JSON.stringify({ mcpServers: { langbot: { url, headers: { 'X-API-Key': key } } } }, null, 2);
}
