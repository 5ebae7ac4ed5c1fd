// Drives `funes mcp` with the official MCP TypeScript SDK client: indexes the project's sample
// session into a fresh store, starts the server over stdio, lists its tools, calls each one and
// checks the answers. Prints a transcript of the calls; exits non-zero on the first mismatch.
//
// node check.mjs --classpath CP --store DIR --sample DIR [--java JAVA]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";

const CLIENT_NAME = "funes-mcp-check";
const SAMPLE_SESSION = "5f0c2b9e-3d4a-4e8b-9c1d-7a6b5c4d3e2f";
const SAMPLE_PROJECT = "/home/dev/projects/ledger-sync";
const SAMPLE_COMMIT = "4e1c9a7";

function options(argv) {
  const opts = { java: "java" };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i].replace(/^--/, "");
    if (!["java", "classpath", "store", "sample"].includes(name) || argv[i + 1] === undefined) {
      throw new Error(`usage: node check.mjs --classpath CP --store DIR --sample DIR [--java JAVA] (bad: ${argv[i]})`);
    }
    opts[name] = argv[i + 1];
  }
  for (const required of ["classpath", "store", "sample"]) {
    if (!opts[required]) throw new Error(`--${required} is required`);
  }
  return opts;
}

let failures = 0;
function check(condition, what, detail) {
  if (condition) {
    console.log(`   ok   ${what}`);
  } else {
    failures++;
    console.log(`   FAIL ${what}${detail === undefined ? "" : ": " + JSON.stringify(detail).slice(0, 600)}`);
  }
}

function show(label, value) {
  const text = JSON.stringify(value);
  console.log(`${label} ${text.length > 700 ? text.slice(0, 700) + "…" : text}`);
}

async function call(client, name, args) {
  show(`\n-> tools/call ${name}`, args);
  const result = await client.callTool({ name, arguments: args });
  show(`<- ${result.isError ? "error" : "result"}`, result.structuredContent ?? result.content);
  return result;
}

async function main() {
  const opts = options(process.argv.slice(2));
  const sample = resolve(opts.sample);

  console.log(`$ java -cp … dev.funes.cli.Main index --index-path ${sample} --store ${opts.store}`);
  const index = spawnSync(opts.java, ["-cp", opts.classpath, "dev.funes.cli.Main", "index",
    "--index-path", sample, "--store", opts.store], { encoding: "utf8" });
  process.stdout.write(index.stdout);
  check(index.status === 0, "index exits 0", index.stderr);
  if (index.status !== 0) return;

  const transport = new StdioClientTransport({
    command: opts.java,
    args: ["-cp", opts.classpath, "dev.funes.cli.Main", "mcp", "--store", opts.store],
    stderr: "inherit",
  });
  const protocolErrors = [];
  const client = new Client({ name: CLIENT_NAME, version: "1.0.0" });
  client.onerror = (e) => protocolErrors.push(String(e));
  console.log(`$ java -cp … dev.funes.cli.Main mcp --store ${opts.store}   (client: @modelcontextprotocol/sdk)`);
  await client.connect(transport);
  show("<- initialize: server", client.getServerVersion());

  try {
    console.log("\n-> tools/list");
    const { tools } = await client.listTools();
    for (const tool of tools) {
      console.log(`<- ${tool.name}(${Object.keys(tool.inputSchema.properties ?? {}).join(", ")}) required=${JSON.stringify(tool.inputSchema.required ?? [])}`);
    }
    const names = tools.map((t) => t.name).sort();
    check(JSON.stringify(names) === JSON.stringify(["recent_sessions", "remember", "search_memory", "why"]),
      "exactly the tools recent_sessions, remember, search_memory, why", names);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    check(JSON.stringify(byName.search_memory?.inputSchema.required) === '["query"]', "search_memory requires query");
    check(JSON.stringify(byName.remember?.inputSchema.required) === '["kind","text"]', "remember requires kind and text");
    check(JSON.stringify(byName.why?.inputSchema.required) === '["target"]', "why requires target");

    const decision = "Decided: the nightly ledger import runs at 02:30 UTC, after the bank export lands, "
      + "because runs at midnight read half-written export files.";
    const remembered = await call(client, "remember", { kind: "decision", text: decision, project: SAMPLE_PROJECT });
    const note = remembered.structuredContent ?? {};
    check(!remembered.isError && note.stored === true, "remember stores a new decision", remembered);
    check(note.kind === "decision" && note.agent === CLIENT_NAME && note.project === SAMPLE_PROJECT,
      "the decision has its kind, the client's name as agent, and the project", note);
    check(typeof note.timestamp === "string" && Math.abs(Date.parse(note.timestamp) - Date.now()) < 10 * 60 * 1000,
      "the decision is timestamped now", note.timestamp);

    const again = await call(client, "remember", { kind: "decision", text: decision, project: SAMPLE_PROJECT });
    check(!again.isError && again.structuredContent?.stored === false && again.structuredContent?.id === note.id,
      "remembering the same text again stores nothing new", again.structuredContent);

    const found = await call(client, "search_memory", { query: "when does the nightly import run and why", limit: 3 });
    const foundHits = found.structuredContent?.hits ?? [];
    const mine = foundHits.find((h) => h.id === note.id);
    check(!found.isError && mine !== undefined, "search_memory finds the remembered decision", foundHits.map((h) => h.id));
    check(mine?.kind === "decision" && mine?.source === null && mine?.text === decision,
      "the decision hit has kind decision, no log source, the full text", mine);
    check(JSON.parse(found.content[0].text).hits?.length === foundHits.length, "the text content carries the same hits as JSON");

    const parser = await call(client, "search_memory",
      { query: "why did we move away from the streaming parser?", limit: 3, agent: "claude-code" });
    const parserHits = parser.structuredContent?.hits ?? [];
    check(!parser.isError && parserHits.length > 0 && parserHits.every((h) => h.agent === "claude-code"),
      "search_memory with agent=claude-code returns only claude-code hits", parserHits);
    const cited = parserHits.find((h) => h.source && h.source.path.endsWith("sample-session.jsonl"));
    check(cited !== undefined, "a hit cites the indexed sample log", parserHits.map((h) => h.source));
    if (cited) {
      const lines = readFileSync(cited.source.path, "utf8").split("\n");
      const { lineStart, lineEnd } = cited.source;
      check(Number.isInteger(lineStart) && lineStart >= 1 && lineEnd >= lineStart && lineEnd <= lines.length,
        `its source lines ${lineStart}-${lineEnd} are inside the file`, cited.source);
      const records = lines.slice(lineStart - 1, lineEnd).join("\n");
      check(records.toLowerCase().includes("streaming") && records.includes(SAMPLE_SESSION),
        "those lines are the session's records about the streaming parser");
      check(cited.session === SAMPLE_SESSION && typeof cited.timestamp === "string" && typeof cited.score === "number",
        "the hit has session, timestamp and score", cited);
    }

    const decisionsOnly = await call(client, "search_memory", { query: "ledger import", kind: "decision" });
    const decisionHits = decisionsOnly.structuredContent?.hits ?? [];
    check(decisionHits.length > 0 && decisionHits.every((h) => h.kind === "decision"),
      "kind=decision returns only decisions", decisionHits.map((h) => h.kind));

    const bad = await call(client, "search_memory", { query: "ledger", after: "last tuesday" });
    check(bad.isError === true && /after/.test(bad.content?.[0]?.text ?? ""),
      "a malformed 'after' is an error result that names the argument", bad.content);

    // The sample session commits with `git commit`; its output "[main 4e1c9a7] ..." links the exchange.
    const why = await call(client, "why", { target: SAMPLE_COMMIT, limit: 3 });
    const whyHits = why.structuredContent?.hits ?? [];
    const maker = whyHits[0];
    check(!why.isError && maker !== undefined, "why <sha> answers with hits", why.content);
    check(maker?.evidence === "commit-output" && maker?.confidence >= 0.9 && maker?.commit === SAMPLE_COMMIT
      && maker?.stale === false, "the first hit was linked by the git commit output, with high confidence", maker);
    check(maker?.agent === "claude-code" && maker?.session === SAMPLE_SESSION && maker?.source?.path.endsWith("sample-session.jsonl"),
      "it is the sample session's exchange, citing the sample log", maker);
    if (maker?.source) {
      const lines = readFileSync(maker.source.path, "utf8").split("\n");
      check(lines.slice(maker.source.lineStart - 1, maker.source.lineEnd).join("\n").includes(`[main ${SAMPLE_COMMIT}]`),
        "its source lines hold the commit output");
    }
    const whyText = await call(client, "why", { target: "when does the nightly ledger import run" });
    const textHits = whyText.structuredContent?.hits ?? [];
    check(!whyText.isError && textHits[0]?.id === note.id && textHits[0]?.evidence === "search",
      "why with a question falls back to search, decisions first", textHits.map((h) => [h.kind, h.evidence]));
    const whyBad = await call(client, "why", { target: "  " });
    check(whyBad.isError === true && /target/.test(whyBad.content?.[0]?.text ?? ""),
      "a blank target is an error result that names the argument", whyBad.content);

    const recent = await call(client, "recent_sessions", { limit: 5 });
    const sessions = recent.structuredContent?.sessions ?? [];
    const sampleSession = sessions.find((s) => s.session === SAMPLE_SESSION);
    check(!recent.isError && sampleSession !== undefined, "recent_sessions lists the sample session", sessions);
    check(sampleSession?.agent === "claude-code" && sampleSession?.project === SAMPLE_PROJECT
      && sampleSession?.memories >= 1 && sampleSession?.firstAt <= sampleSession?.lastAt,
      "with its agent, project, first/last time and memory count", sampleSession);

    check(protocolErrors.length === 0, "no protocol errors (stdout carried only MCP messages)", protocolErrors);
  } finally {
    await client.close();
  }
}

main().then(
  () => {
    console.log(failures === 0 ? "\nMCP client check: all passed" : `\nMCP client check: ${failures} failed`);
    process.exit(failures === 0 ? 0 : 1);
  },
  (e) => {
    console.log(`\nMCP client check: error: ${e?.stack ?? e}`);
    process.exit(2);
  },
);
