// Drives `pybridge serve` with the official MCP TypeScript SDK client (the one most agent hosts embed).
// Reads a JSON config on stdin:
//   {"transport": "stdio", "command": "...", "args": [...], "env": {...}, "cwd": "..."}
//   or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp", "token": "..."}
//   plus "calls": [{"label": "...", "tool": "...", "args": {...}}]; an argument {"$ref": [label, key, ...]} is the
//   value at that path in an earlier call's structuredContent (a key or cursor the server returned); a call with
//   "repeatWhileCode": CODE (and "deadlineSeconds", default 300) is repeated, a tenth of a second apart, while its
//   answer is an error with that code (a first sync still running: "indexing"); its row counts the "attempts"
// and prints one JSON object: {"server": ..., "tools": [names], "calls": [{label, isError, structuredContent,
// text, thrown, raw}]}, where `thrown` is the client's error ({code, message}) when callTool rejected, e.g. because
// structuredContent did not match the tool's outputSchema (MCP error -32602); `raw` is then what the server sent.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const config = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const transport = config.transport === "http"
  ? new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.token ? { Authorization: `Bearer ${config.token}` } : {} },
    })
  : new StdioClientTransport({
      command: config.command, args: config.args, env: config.env, cwd: config.cwd, stderr: "ignore",
    });

const byLabel = {};
function resolveRefs(value) {
  if (Array.isArray(value)) return value.map(resolveRefs);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === "$ref") {
    const [label, ...path] = value.$ref;
    return path.reduce((found, key) => found[key], byLabel[label].structuredContent);
  }
  return Object.fromEntries(keys.map((k) => [k, resolveRefs(value[k])]));
}

const client = new Client({ name: "pybridge-ts-test", version: "1.0.0" });
await client.connect(transport);
const out = { server: client.getServerVersion(), tools: [], calls: [] };
out.tools = (await client.listTools()).tools.map((t) => t.name);
for (const call of config.calls) {
  const row = { label: call.label, tool: call.tool, isError: null, structuredContent: null, text: null, thrown: null };
  const args = resolveRefs(call.args);
  try {
    const until = Date.now() + 1000 * (call.deadlineSeconds ?? 300);
    let result = await client.callTool({ name: call.tool, arguments: args }, undefined, { timeout: 300000 });
    row.attempts = 1;
    while (call.repeatWhileCode && result.isError && result.structuredContent?.code === call.repeatWhileCode
           && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await client.callTool({ name: call.tool, arguments: args }, undefined, { timeout: 300000 });
      row.attempts += 1;
    }
    row.isError = result.isError ?? false;
    row.structuredContent = result.structuredContent ?? null;
    const first = (result.content ?? [])[0];
    if (first && first.type === "text") {
      try { row.text = JSON.parse(first.text); } catch { row.text = first.text; }
    }
  } catch (err) {
    row.thrown = { code: err.code ?? null, message: String(err.message ?? err) };
    // What the server sent, fetched again without the client's output-schema check, for the report.
    try {
      const raw = await client.request({ method: "tools/call", params: { name: call.tool, arguments: args } },
        CallToolResultSchema, { timeout: 300000 });
      row.raw = raw.structuredContent ?? null;
    } catch (again) {
      row.raw = { requestFailed: String(again.message ?? again) };
    }
  }
  out.calls.push(row);
  byLabel[call.label] = row;
}
await client.close();
process.stdout.write(JSON.stringify(out) + "\n");
