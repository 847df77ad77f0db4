#!/usr/bin/env node
// @ccusage/pi, a usage tracker for Pi sessions, behind pi-conformance protocol v1, driven
// through its own CLI (`ccusage-pi session --json`), exactly as its users run it.
//
// ccusage-pi reads every *.jsonl under a sessions directory. For each case we lay out a
// private HOME holding <home>/.pi/agent/sessions/conformance/session.jsonl (a copy) and ask
// for the session report. Its totals map to Pi's `stats` stage where the two really mean the
// same thing (docs/adapters.md, "ccusage-pi"):
//
//   ccusage totals.inputTokens          -> stats.tokens.input
//   ccusage totals.outputTokens         -> stats.tokens.output
//   ccusage totals.cacheReadTokens      -> stats.tokens.cacheRead
//   ccusage totals.cacheCreationTokens  -> stats.tokens.cacheWrite
//   ccusage totals.totalCost            -> stats.cost
//
// and nothing else: it has no message counts, no tokens.total in its JSON, and its session id
// comes from the file name, not the header. Those fields are left out of the claim (hello
// capabilities.fields), not invented. "No usage data found" (an empty JSON list) means it
// found no assistant usage at all: totals of zero by its own definition.
//
// Usage: node adapter.mjs <prefix>   (the npm prefix holding @ccusage/pi)

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const PROTOCOL = 1;
const prefix = process.argv[2];
if (!prefix) {
	process.stderr.write("usage: adapter.mjs <npm prefix of @ccusage/pi>\n");
	process.exit(2);
}
const pkg = join(prefix, "node_modules", "@ccusage", "pi");
const cli = join(pkg, "dist", "index.js");
const version = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).version;
const FIELDS = ["tokens.input", "tokens.output", "tokens.cacheRead", "tokens.cacheWrite", "cost"];
const scratch = mkdtempSync(join(tmpdir(), "pi-conformance-ccusage-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

function statsStage(seq, sessionPath) {
	const home = join(scratch, `run-${seq}`);
	const sessions = join(home, ".pi", "agent", "sessions");
	mkdirSync(join(sessions, "conformance"), { recursive: true });
	copyFileSync(sessionPath, join(sessions, "conformance", "session.jsonl"));
	try {
		const env = { PATH: process.env.PATH ?? "", HOME: home, LOG_LEVEL: "0", NO_COLOR: "1", TZ: "UTC" };
		const out = execFileSync(process.execPath, [cli, "session", "--json", "--timezone", "UTC", "--piPath", sessions], {
			env,
			cwd: home,
			encoding: "utf8",
			stdio: ["ignore", "pipe", "pipe"],
			timeout: 60_000,
		});
		const report = JSON.parse(out);
		const totals = Array.isArray(report)
			? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0, totalCost: 0 }
			: report.totals;
		return {
			output: {
				tokens: {
					input: totals.inputTokens,
					output: totals.outputTokens,
					cacheRead: totals.cacheReadTokens,
					cacheWrite: totals.cacheCreationTokens,
				},
				cost: totals.totalCost,
			},
		};
	} finally {
		rmSync(home, { recursive: true, force: true });
	}
}

function runCase(message) {
	const results = {};
	for (const stage of message.stages) {
		if (stage !== "stats") {
			results[stage] = { skipped: `ccusage-pi does not implement ${stage}` };
			continue;
		}
		try {
			results[stage] = statsStage(message.seq, message.session.path);
		} catch (error) {
			const detail = error?.stderr ? String(error.stderr).trim().slice(-2000) : "";
			results[stage] = { error: { message: `ccusage-pi failed: ${error?.message ?? error}${detail ? `\n${detail}` : ""}` } };
		}
	}
	return results;
}

function hello() {
	return {
		protocol: PROTOCOL,
		implementation: {
			name: "@ccusage/pi",
			version,
			language: "javascript",
			homepage: "https://www.npmjs.com/package/@ccusage/pi",
			issues: "https://github.com/ryoppippi/ccusage/issues",
			dependencies: { "@ccusage/pi": version, node: process.versions.node },
		},
		capabilities: { stages: ["stats"], fields: { stats: FIELDS } },
	};
}

const write = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
	if (!line.trim()) continue;
	let message;
	try {
		message = JSON.parse(line);
	} catch (error) {
		write({ error: { message: `not JSON: ${error.message}` } });
		continue;
	}
	if (message.cmd === "hello") write(hello());
	else if (message.cmd === "run") write({ seq: message.seq, results: runCase(message) });
	else if (message.cmd === "bye") break;
	else write({ seq: message.seq ?? null, error: { message: `unknown command ${JSON.stringify(message.cmd)}` } });
}
process.exit(0);
