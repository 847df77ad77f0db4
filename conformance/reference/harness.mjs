#!/usr/bin/env node
// The reference implementation: the real, pinned Pi behind pi-conformance protocol v1.
//
// This file only wires Pi's own exported functions to the protocol. It computes nothing
// itself: every stage output is what Pi returns, serialised with JSON.stringify like Pi
// does on disk. It never touches the file it is given: every session is copied into a
// private temporary directory first, because Pi migrates, rewrites and appends on open.
//
// Usage: node harness.mjs <prefix>   (prefix = the npm prefix holding the pinned Pi)

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const PROTOCOL = 1;
const prefix = process.argv[2];
if (!prefix) {
	process.stderr.write("usage: harness.mjs <npm prefix of the pinned Pi>\n");
	process.exit(2);
}

const pkgDir = (name) => join(prefix, "node_modules", "@earendil-works", name);
const load = (name, file) => import(pathToFileURL(join(pkgDir(name), file)).href);
const version = (name) => JSON.parse(readFileSync(join(pkgDir(name), "package.json"), "utf8")).version;

// Pi must never reach the network. Adapters call onPayload before any I/O and we throw
// there; this guard makes any other attempt fail loudly instead of leaving the machine.
const realFetch = globalThis.fetch;
globalThis.fetch = (input, init) => {
	const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
	if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
		return Promise.reject(new Error(`pi-conformance: blocked non-loopback request to ${url.host}`));
	}
	return realFetch(input, init);
};

const sessionManager = await load("pi-coding-agent", "dist/core/session-manager.js");
const messages = await load("pi-coding-agent", "dist/core/messages.js");
const agentSession = await load("pi-coding-agent", "dist/core/agent-session.js");
const piAi = await load("pi-ai", "dist/index.js");

const API_MODULES = {
	"anthropic-messages": "dist/api/anthropic-messages.js",
	"openai-completions": "dist/api/openai-completions.js",
	"openai-responses": "dist/api/openai-responses.js",
	"google-generative-ai": "dist/api/google-generative-ai.js",
};
const STAGES = ["entries", "branch", "context", "projection", "llm", "prompt", "stats"];

const scratch = mkdtempSync(join(tmpdir(), "pi-conformance-ref-"));
const cwdDir = join(scratch, "cwd");
mkdirSync(cwdDir);
process.chdir(cwdDir);
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

/** JSON round trip, so outputs are exactly what Pi would serialise (undefined dropped, NaN -> null). */
const plain = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/** Pi reports the harness's private cwd where a header has none; report the runner's instead. */
function replaceCwd(value, cwd) {
	if (typeof value === "string") return value === cwdDir ? cwd : value;
	if (Array.isArray(value)) return value.map((v) => replaceCwd(v, cwd));
	if (value && typeof value === "object") {
		return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceCwd(v, cwd)]));
	}
	return value;
}

/** A rejection; the private scratch path Pi names in some messages is not part of the answer. */
function rejected(error) {
	const message = String(error?.message ?? error);
	const scrubbed = message.split(scratch).join("<scratch>").replace(/<scratch>\/run-[^/]+\//g, "<scratch>/run/");
	return { rejected: { message: scrubbed } };
}

/** Pi opens a private copy in a directory of its own, removed even when Pi rejects the file. */
function openCopy(sessionPath) {
	const dir = mkdtempSync(join(scratch, "run-"));
	try {
		const copy = join(dir, "session.jsonl");
		copyFileSync(sessionPath, copy);
		return { dir, manager: sessionManager.SessionManager.open(copy, dir) };
	} catch (error) {
		rmSync(dir, { recursive: true, force: true });
		throw error;
	}
}

function entriesStage(manager) {
	return { header: plain(manager.getHeader()), entries: plain(manager.getEntries()) };
}

function branchStage(manager) {
	const all = manager.getEntries();
	const path = manager.getBranch().map((entry) => ({
		index: all.indexOf(entry),
		id: entry?.id ?? null,
		type: entry?.type ?? null,
	}));
	return { leafId: manager.getLeafId() ?? null, path };
}

function promptStage(llmMessages) {
	const system = piAi.getCurrentSystemMessage(llmMessages);
	if (system === undefined) return { system: null, text: piAi.getCurrentSystemPrompt(llmMessages) };
	return {
		system: {
			content: plain(system.content),
			// Section order is Pi's behaviour (JS object and Map order): keep it as pairs.
			sections: Object.entries(system.sections ?? {}).map(([name, value]) => [name, value]),
			tools: plain(system.toolsAdded ?? []),
			timestamp: plain(system.timestamp),
		},
		text: piAi.getCurrentSystemPrompt(llmMessages),
	};
}

function statsStage(manager) {
	// getSessionStats is an AgentSession method that reads only its session manager; a full
	// AgentSession needs a model and auth. contextUsage needs a model, so it is left out.
	const receiver = {
		sessionManager: manager,
		sessionFile: manager.getSessionFile(),
		sessionId: manager.getSessionId(),
		getContextUsage: () => undefined,
	};
	const stats = plain(agentSession.AgentSession.prototype.getSessionStats.call(receiver));
	delete stats.sessionFile;
	return stats;
}

async function requestStage(api, llmMessages, request) {
	if (!request?.model) throw new Error(`no model given for ${api} (options.request.models)`);
	const mod = await load("pi-ai", API_MODULES[api]);
	const context = piAi.normalizeContext({ messages: llmMessages });
	let payload;
	const captured = new Error("pi-conformance: payload captured");
	const stream = mod.streamSimple(request.model, context, {
		apiKey: request.apiKey ?? "sk-test-key",
		sessionId: request.sessionId ?? "sess-fixed",
		maxRetries: 0,
		...(request.reasoning ? { reasoning: request.reasoning } : {}),
		onPayload: (params) => {
			payload = plain(params);
			throw captured;
		},
	});
	const final = await stream.result();
	if (payload === undefined) {
		const reason = final?.errorMessage ?? "the adapter never built a request";
		return rejected(reason);
	}
	return { output: payload };
}

async function runCase(message) {
	const wanted = message.stages ?? STAGES;
	const cwd = message.options?.cwd ?? cwdDir;
	const results = {};
	let opened;
	try {
		opened = openCopy(message.session.path);
	} catch (error) {
		for (const stage of wanted) results[stage] = rejected(error);
		return results;
	}
	const { manager, dir } = opened;
	try {
		let context;
		let llm;
		const need = (fn) => {
			try {
				return { output: fn() };
			} catch (error) {
				return rejected(error);
			}
		};
		const getContext = () => (context ??= manager.buildSessionContext());
		const getLlm = () => (llm ??= messages.convertToLlm(getContext().messages));
		for (const stage of wanted) {
			let result;
			if (stage === "entries") result = need(() => entriesStage(manager));
			else if (stage === "branch") result = need(() => branchStage(manager));
			else if (stage === "context") result = need(() => plain(getContext()));
			else if (stage === "projection") {
				result = need(() => {
					const projection = manager.buildSessionProjection();
					// messages, model and thinking level equal the context stage; not repeated.
					return {
						entries: projection.entries.map((e) => ({
							sourceEntryId: e.sourceEntry?.id ?? null,
							messages: plain(e.messages),
						})),
					};
				});
			} else if (stage === "llm") result = need(() => plain(getLlm()));
			else if (stage === "prompt") result = need(() => promptStage(getLlm()));
			else if (stage === "stats") result = need(() => statsStage(manager));
			else if (stage.startsWith("request.") && API_MODULES[stage.slice(8)]) {
				const api = stage.slice(8);
				try {
					result = await requestStage(api, getLlm(), {
						...(message.options?.request ?? {}),
						model: message.options?.request?.models?.[api],
					});
				} catch (error) {
					result = rejected(error);
				}
			} else result = { skipped: `stage ${stage} is not implemented by the reference` };
			if (result.output !== undefined) result.output = replaceCwd(result.output, cwd);
			results[stage] = result;
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return results;
}

function hello() {
	const versions = {
		"@earendil-works/pi-coding-agent": version("pi-coding-agent"),
		"@earendil-works/pi-ai": version("pi-ai"),
		"@earendil-works/pi-agent-core": version("pi-agent-core"),
		node: process.versions.node,
	};
	return {
		protocol: PROTOCOL,
		implementation: {
			name: "pi-reference",
			version: versions["@earendil-works/pi-coding-agent"],
			language: "javascript",
			homepage: "https://www.npmjs.com/package/@earendil-works/pi-coding-agent",
			issues: "https://github.com/earendil-works/pi/issues",
			dependencies: versions,
		},
		capabilities: {
			stages: [...STAGES, ...Object.keys(API_MODULES).map((api) => `request.${api}`)],
		},
	};
}

const write = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);

// Requests are answered strictly in order: the next line is read only once the previous
// answer is written, so a slow request cannot be overtaken.
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
	else if (message.cmd === "run") {
		try {
			write({ seq: message.seq, results: await runCase(message) });
		} catch (error) {
			write({ seq: message.seq, error: { message: String(error?.stack ?? error) } });
		}
	} else if (message.cmd === "bye") break;
	else write({ seq: message.seq ?? null, error: { message: `unknown command ${JSON.stringify(message.cmd)}` } });
}
process.exit(0);
