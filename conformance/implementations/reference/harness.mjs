#!/usr/bin/env node
// Pi behind pi-conformance protocol v1: the pinned 1.6.0 reference, and the older releases
// (1.x under @earendil-works, 0.7x under @mariozechner) that the drift report compares with it.
//
// This file only wires Pi's own exported functions to the protocol. It computes nothing
// itself: every stage output is what Pi returns, serialised with JSON.stringify like Pi does on
// disk. It claims a stage only when the release really has the function that answers it
// (detected by loading the release once, the answer kept beside it; never assumed from a
// version number), and one harness serves every release, so a difference between releases
// is Pi's, not ours. It never touches the file it is given: every session is copied into a
// private temporary directory first, because Pi migrates, rewrites and appends on open.
//
// Usage: node harness.mjs <prefix> <scope> [name]   (the npm prefix holding Pi; its npm scope,
// e.g. @earendil-works; the name to give in hello, by default the coding agent's package name)
//
// `pi-conformance corpus regenerate` runs Pi more than once to find the values it invents, and
// varies what Pi could invent them from. Without these variables nothing is changed:
//   PI_CONFORMANCE_SEED          Math.random, crypto.randomUUID / randomBytes / getRandomValues
//                                come from a generator seeded with this string
//   PI_CONFORMANCE_CLOCK_OFFSET  milliseconds added to Date.now() and `new Date()`
//   PI_CONFORMANCE_SCRATCH_TAG   put into the name of the private temporary directory
//
// And two that change only when Pi's modules load (see `preloadTheRest`):
//   PI_CONFORMANCE_PRELOAD=0     load only what each case's stages need, nothing ahead (for a
//                                process started for one case, where Pi may loop forever)
//   PI_CONFORMANCE_STAGES        the stages the run may ask, comma-separated, which the runner
//                                gives every implementation of a run narrowed by --stage or
//                                --api: only what they need is loaded ahead (a hint; a stage
//                                not named still loads what it needs when asked)

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import nodeCrypto from "node:crypto";
import { enableCompileCache, flushCompileCache, syncBuiltinESMExports } from "node:module";
import { createServer } from "node:http";
import net from "node:net";
import zlib from "node:zlib";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { tickWallClock, withMonotonicAhead } from "./clocks.mjs";
import { eventsStage, hasEventsModules, loadEventsModules, TurnScriptError } from "./events.mjs";

const PROTOCOL = 1;
const [prefix, scope, helloName] = process.argv.slice(2);
if (!prefix || !scope) {
	process.stderr.write("usage: harness.mjs <npm prefix> <npm scope, e.g. @earendil-works>\n");
	process.exit(2);
}

// Loading Pi's module graph is most of a start (about a second, agent-session.js alone over
// half): V8's code cache, kept beside the installation, saves compiling it again. It changes
// no behaviour, and it is written out at once because these processes are killed, not ended.
enableCompileCache(join(prefix, ".compile-cache"));

const pkgDir = (name) => join(prefix, "node_modules", scope, name);
const has = (name, file) => existsSync(join(pkgDir(name), file));
const load = (name, file) => import(pathToFileURL(join(pkgDir(name), file)).href);
const version = (name) => JSON.parse(readFileSync(join(pkgDir(name), "package.json"), "utf8")).version;

/** Bytes from a small seeded generator (cyrb32 of the seed, then mulberry32): reproducible. */
function seededBytes(seed) {
	let state = 1779033703 ^ seed.length;
	for (let i = 0; i < seed.length; i++) {
		state = Math.imul(state ^ seed.charCodeAt(i), 3432918353);
		state = (state << 13) | (state >>> 19);
	}
	return (size) => {
		const out = Buffer.alloc(size);
		for (let i = 0; i < size; i++) {
			state = (state + 0x6d2b79f5) | 0;
			let t = Math.imul(state ^ (state >>> 15), 1 | state);
			t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
			out[i] = (t ^ (t >>> 14)) & 0xff;
		}
		return out;
	};
}

/** Every source of randomness Pi reaches (ids: crypto.randomUUID; uuidv7: getRandomValues).
 * Returns the function that starts the seeded stream again from its beginning (the same
 * functions, which a module may have kept, draw from it). */
function seedRandomness(seed) {
	let next = seededBytes(seed);
	const fill = (view) => {
		new Uint8Array(view.buffer, view.byteOffset, view.byteLength).set(next(view.byteLength));
		return view;
	};
	const randomUUID = () => {
		const b = next(16);
		b[6] = (b[6] & 0x0f) | 0x40;
		b[8] = (b[8] & 0x3f) | 0x80;
		const h = b.toString("hex");
		return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
	};
	const randomBytes = (size, callback) => {
		const bytes = next(size);
		if (typeof callback !== "function") return bytes;
		process.nextTick(callback, null, bytes);
	};
	Math.random = () => next(4).readUInt32LE(0) / 2 ** 32;
	const replace = (target, name, value) =>
		Object.defineProperty(target, name, { value, configurable: true, writable: true, enumerable: true });
	// node:crypto's own getRandomValues is a fixed getter for webcrypto's: replaced below.
	replace(nodeCrypto, "randomUUID", randomUUID);
	replace(nodeCrypto, "randomBytes", randomBytes);
	replace(globalThis.crypto, "randomUUID", randomUUID);
	replace(globalThis.crypto, "getRandomValues", fill);
	syncBuiltinESMExports(); // `import { randomUUID } from "crypto"` in Pi sees the seeded one
	return () => {
		next = seededBytes(seed);
	};
}

/** The clock moved by `offset` ms: Date.now() and `new Date()` without arguments. */
function shiftClock(offset) {
	const RealDate = Date;
	class ShiftedDate extends RealDate {
		constructor(...args) {
			if (args.length === 0) super(RealDate.now() + offset);
			else super(...args);
		}
		static now() {
			return RealDate.now() + offset;
		}
	}
	globalThis.Date = ShiftedDate;
}

const variation = {
	seed: process.env.PI_CONFORMANCE_SEED,
	clockOffset: process.env.PI_CONFORMANCE_CLOCK_OFFSET,
	scratchTag: process.env.PI_CONFORMANCE_SCRATCH_TAG,
};
const restartRandomness = variation.seed === undefined ? () => {} : seedRandomness(variation.seed);
if (variation.clockOffset !== undefined) {
	const offset = Number(variation.clockOffset);
	if (!Number.isFinite(offset)) {
		process.stderr.write(`PI_CONFORMANCE_CLOCK_OFFSET must be a number of ms, not ${variation.clockOffset}\n`);
		process.exit(2);
	}
	shiftClock(offset);
}

// No network, ever: while pi-ai is called for a request or wire stage, every fetch goes to the
// harness's own loopback server (wireRedirect), and this makes anything else fail loudly.
// Not every SDK uses fetch (the AWS SDK sends with node:http, Google's auth library with
// node-fetch, Codex opens a WebSocket), so below fetch, every TCP connection is checked too:
// one to any host but the loopback is refused before its name is even looked up, and recorded,
// and the provider call that caused it is an error of the harness (never a golden).
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);
const blockedConnections = [];
const realConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
	const first = Array.isArray(args[0]) ? args[0][0] : args[0];
	const options = typeof first === "object" && first !== null ? first : { port: first, host: typeof args[1] === "string" ? args[1] : undefined };
	if (!options.path) { // as Node decides: a path is a local socket, anything else TCP
		const host = String(options.host ?? "localhost");
		if (!LOOPBACK_HOSTS.has(host)) {
			blockedConnections.push(`${host}:${options.port}`);
			const error = new Error(`pi-conformance: blocked non-loopback connection to ${host}:${options.port}`);
			process.nextTick(() => this.destroy(error));
			return this;
		}
	}
	return realConnect.apply(this, args);
};

// What pi-ai reads from the environment to choose an endpoint, a region, a proxy or
// credentials (its getProviderEnvValue, the AWS SDK's config chain): a developer's own
// settings must not change a golden, nor send it anywhere. The harness gives its own through
// each API's stream options (API_OPTIONS) instead.
for (const name of Object.keys(process.env)) {
	if (/^(AWS_|AZURE_|GOOGLE_|GCLOUD_|GEMINI_|VERTEX_|MISTRAL_|RADIUS_|PI_CACHE_RETENTION$|(HTTPS?|ALL|NO)_PROXY$)/i.test(name)) {
		delete process.env[name];
	}
}

const realFetch = globalThis.fetch;
let wireTarget = null; // the loopback origin every fetch goes to while pi-ai is called
globalThis.fetch = (input, init) => {
	let url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
	if (wireTarget !== null) [input, url] = wireRedirect(input, url);
	if (!["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) {
		return Promise.reject(new Error(`pi-conformance: blocked non-loopback request to ${url.host}`));
	}
	return realFetch(input, init);
};

// ---- Pi's modules, loaded when a stage first needs them ----
//
// Pi's whole module graph is over a thousand modules and about a second to load, most of it
// agent-session.js, which only the stats stage needs. A case asking for entries or branch (the
// cases where Pi loops forever, a one-case run narrowed to a stage) needs session-manager.js
// alone, about a tenth of that. So each group loads on first need, and always before any stage
// of the case that needs it runs: no stage sees a module half loaded. Which stages a release
// answers is still found by loading every module (see `capabilities`), once per installation.

const CORE = "core"; // session-manager.js, messages.js and pi-ai's index, which the former loads
const AGENT_SESSION = "agent-session"; // for stats
const EVENTS = "events"; // the agent session and what it needs to run a live turn (events.mjs)

// Where each provider API's simple stream lives: dist/api/<api>.js (1.x) or the older
// dist/providers/<file>.js with a per-provider export name (0.7x).
const API_LOCATIONS = {
	"anthropic-messages": [["dist/api/anthropic-messages.js", "streamSimple"], ["dist/providers/anthropic.js", "streamSimpleAnthropic"]],
	"openai-completions": [["dist/api/openai-completions.js", "streamSimple"], ["dist/providers/openai-completions.js", "streamSimpleOpenAICompletions"]],
	"openai-responses": [["dist/api/openai-responses.js", "streamSimple"], ["dist/providers/openai-responses.js", "streamSimpleOpenAIResponses"]],
	"google-generative-ai": [["dist/api/google-generative-ai.js", "streamSimple"], ["dist/providers/google.js", "streamSimpleGoogle"]],
	"azure-openai-responses": [["dist/api/azure-openai-responses.js", "streamSimple"], ["dist/providers/azure-openai-responses.js", "streamSimpleAzureOpenAIResponses"]],
	"openai-codex-responses": [["dist/api/openai-codex-responses.js", "streamSimple"], ["dist/providers/openai-codex-responses.js", "streamSimpleOpenAICodexResponses"]],
	"mistral-conversations": [["dist/api/mistral-conversations.js", "streamSimple"], ["dist/providers/mistral.js", "streamSimpleMistral"]],
	"bedrock-converse-stream": [["dist/api/bedrock-converse-stream.js", "streamSimple"], ["dist/providers/amazon-bedrock.js", "streamSimpleBedrock"]],
	"google-vertex": [["dist/api/google-vertex.js", "streamSimple"], ["dist/providers/google-vertex.js", "streamSimpleGoogleVertex"]],
	"pi-messages": [["dist/api/pi-messages.js", "streamSimple"]],
};

let sessionManager;
let messages;
let agentSession;
let piAi;
let eventsModules;
const apis = {}; // api id -> its stream function, once loaded
const loading = new Map(); // group -> the promise of its load

/** Load a group of Pi's modules once; its promise is shared by every stage that needs it. */
function loadGroup(group) {
	if (!loading.has(group)) {
		loading.set(group, loadGroupNow(group).finally(() => flushCompileCache()));
	}
	return loading.get(group);
}

async function loadGroupNow(group) {
	if (group === CORE) {
		sessionManager = await load("pi-coding-agent", "dist/core/session-manager.js");
		messages = await load("pi-coding-agent", "dist/core/messages.js");
		piAi = await load("pi-ai", "dist/index.js");
	} else if (group === AGENT_SESSION) {
		agentSession = await load("pi-coding-agent", "dist/core/agent-session.js");
	} else if (group === EVENTS) {
		eventsModules = await loadEventsModules(load);
	} else {
		const api = group.slice("api:".length);
		const [file, exportName] = capabilities.apis[api];
		apis[api] = (await load("pi-ai", file))[exportName];
	}
}

/** The module groups the stages of one request need. */
function groupsFor(stages) {
	const groups = new Set([CORE]);
	for (const stage of stages) {
		if (stage === "stats" && STAGES.includes("stats")) groups.add(AGENT_SESSION);
		if (stage === "events" && STAGES.includes("events")) groups.add(EVENTS);
		const api = apiOf(stage);
		if (api !== undefined && capabilities.apis[api] !== undefined) groups.add(`api:${api}`);
	}
	return [...groups];
}

// ---- capabilities: which stages this release answers ----
//
// Found by loading every module and looking for the function that answers each stage; never
// assumed from a version number. That costs a full load, so the answer is kept beside the
// installation, keyed by everything it depends on: this file's text, the packages' versions
// (an npm version's files never change) and Node's version. Any other key means detect again.

async function detectCapabilities() {
	await loadGroup(CORE);
	await loadGroup(AGENT_SESSION);
	const proto = sessionManager.SessionManager.prototype;
	const stages = ["entries", "branch", "context"];
	if (typeof proto.buildSessionProjection === "function") stages.push("projection");
	stages.push("llm");
	if (typeof piAi.getCurrentSystemMessage === "function") stages.push("prompt");
	if (typeof agentSession.AgentSession?.prototype?.getSessionStats === "function") stages.push("stats");
	if (hasEventsModules(has)) stages.push("events");
	const found = {};
	for (const [api, candidates] of Object.entries(API_LOCATIONS)) {
		for (const [file, exportName] of candidates) {
			if (!has("pi-ai", file)) continue;
			const mod = await load("pi-ai", file);
			if (typeof mod[exportName] === "function") {
				found[api] = [file, exportName];
				apis[api] = mod[exportName];
				break;
			}
		}
	}
	flushCompileCache();
	return { stages, apis: found };
}

function capabilityKey() {
	const hash = nodeCrypto.createHash("sha256");
	hash.update(readFileSync(new URL(import.meta.url)));
	hash.update(JSON.stringify({
		scope,
		node: process.versions.node,
		packages: ["pi-coding-agent", "pi-ai", "pi-agent-core"].map((name) => [name, version(name)]),
	}));
	return hash.digest("hex");
}

async function capabilitiesOfInstallation() {
	const file = join(prefix, ".harness-capabilities.json");
	const key = capabilityKey();
	try {
		const kept = JSON.parse(readFileSync(file, "utf8"));
		if (kept.key === key && Array.isArray(kept.stages) && kept.apis && typeof kept.apis === "object") {
			return { stages: kept.stages, apis: kept.apis };
		}
	} catch {
		// missing or unreadable: detect below
	}
	const detected = await detectCapabilities();
	try {
		const partial = `${file}.${process.pid}`;
		writeFileSync(partial, `${JSON.stringify({ key, ...detected })}\n`);
		renameSync(partial, file);
	} catch {
		// a read-only installation detects again next time
	}
	return detected;
}

const capabilities = await capabilitiesOfInstallation();
// Detecting loads all of Pi, whose modules may draw random values as they load: a process that
// detected (the kept answer was another harness text's) draws from here what one that read it
// draws.
restartRandomness();
const STAGES = capabilities.stages;

// Once it has answered its hello, while its runner gets ready (about half a second), the
// harness loads the rest of Pi, group by group, so that a case needing all of it does not wait
// for all of it. Module code never runs in the middle of synchronous code, so a case whose
// stages are all synchronous runs safely between two groups; one with a request or wire
// stage, which awaits, waits for the loading to end first (see runCase). Not done under a
// variation (randomness Pi's modules consumed at load would then depend on timing), nor in a
// process started for one case (PI_CONFORMANCE_PRELOAD=0). In a run narrowed to some stages
// (PI_CONFORMANCE_STAGES), only what they need: agent-session.js alone takes most of a second,
// which a branch-only case would otherwise wait out if it came in while it loads.
let preloading = loadGroup(CORE); // a failure shows in the first case that needs the group
preloading.catch(() => {});
let preloadStarted = process.env.PI_CONFORMANCE_PRELOAD === "0" || Object.values(variation).some((v) => v !== undefined);

// The stages the run may ask, when the runner says (PI_CONFORMANCE_STAGES); else all.
const HINTED = process.env.PI_CONFORMANCE_STAGES?.split(",").filter((stage) => stage !== "");

function preloadTheRest() {
	if (preloadStarted) return;
	preloadStarted = true;
	const everything = [CORE, AGENT_SESSION, ...(STAGES.includes("events") ? [EVENTS] : []), ...Object.keys(capabilities.apis).map((api) => `api:${api}`)];
	// In this order, so a narrowed run's groups come first (groupsFor only picks among them).
	const hinted = HINTED === undefined ? undefined : new Set(groupsFor(HINTED));
	const groups = hinted === undefined ? everything : everything.filter((group) => hinted.has(group));
	preloading = (async () => {
		for (const group of groups) {
			await loadGroup(group);
			await new Promise((resolve) => setImmediate(resolve)); // a case may come in between
		}
	})();
	preloading.catch(() => {});
}

const scratchPrefix = variation.scratchTag === undefined ? "pi-conformance-ref-" : `pi-conformance-ref-${variation.scratchTag}-`;
const scratch = mkdtempSync(join(tmpdir(), scratchPrefix));
const cwdDir = join(scratch, "cwd");
mkdirSync(cwdDir);
process.chdir(cwdDir);
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));

const plain = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/** Every string value equal to the harness's own cwd becomes the case's `cwd`. Outputs are
 * plain JSON: one native serialisation finds whether there is any such string at all, which
 * is rare, instead of a walk allocating a copy of every object of every answer. */
function replaceCwd(value, cwd) {
	if (cwd === cwdDir) return value;
	const text = JSON.stringify(value);
	if (text === undefined || !text.includes(JSON.stringify(cwdDir))) return value;
	return JSON.parse(text, (key, v) => (v === cwdDir ? cwd : v));
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
			sections: Object.entries(system.sections ?? {}).map(([name, value]) => [name, value]),
			tools: plain(system.toolsAdded ?? []),
			timestamp: plain(system.timestamp),
		},
		text: piAi.getCurrentSystemPrompt(llmMessages),
	};
}

function statsStage(manager, getContext) {
	// getSessionStats is an AgentSession method. 1.x reads this.sessionManager (all entries);
	// 0.7x reads this.state.messages, which an opened AgentSession holds as the session's
	// buildSessionContext().messages. The receiver offers both; each release uses its own.
	const receiver = {
		sessionManager: manager,
		sessionFile: manager.getSessionFile(),
		sessionId: manager.getSessionId(),
		get state() {
			return { messages: getContext().messages };
		},
		getContextUsage: () => undefined,
	};
	const stats = plain(agentSession.AgentSession.prototype.getSessionStats.call(receiver));
	delete stats.sessionFile;
	return stats;
}

// ---- wire.<api>: the HTTP request pi-ai sends, received by a loopback server of ours ----
//
// While pi-ai is called, every fetch goes to this server instead of the model's baseUrl:
// only the origin changes (path and query are kept), so pi-ai sees the model unchanged (it
// reads baseUrl for some decisions). The server records the request and answers 400, which
// no SDK retries (maxRetries is 0 anyway), so pi-ai ends the stream with an error at once.
// The error names no thread, so pi-ai's Anthropic thread fallback never resends, and no reply
// ever succeeds, so no per-session thread state carries over from one case to the next.

// The headers that carry meaning, as the server receives them (lower-case): the ones pi-ai
// and the SDKs set on purpose to select an API version, a beta, a session or a client. An
// allow-list, so that nothing unreviewed lands in a golden; everything else is left out:
// secrets and what is derived from them (x-api-key, api-key, authorization, x-goog-api-key,
// chatgpt-account-id, SigV4's x-amz-date and x-amz-content-sha256, a hash of the body already
// judged), transport (host, content-length, connection, accept, accept-encoding,
// accept-language, sec-fetch-mode, user-agent) and the SDKs' own telemetry (x-stainless-*,
// x-goog-api-client, x-amz-user-agent, amz-sdk-invocation-id, amz-sdk-request).
// docs/stages.md lists the rule.
const WIRE_HEADERS = [
	"anthropic-beta",
	"anthropic-dangerous-direct-browser-access",
	"anthropic-version",
	"content-encoding",
	"content-type",
	"copilot-vision-request",
	"http-referer",
	"openai-beta",
	"originator",
	"session-id",
	"x-affinity",
	"x-app",
	"x-billing-invoke-origin",
	"x-client-request-id",
	"x-opencode-client",
	"x-opencode-session",
	"x-openrouter-categories",
	"x-openrouter-title",
	"x-session-affinity",
	"x-session-id",
];
let wireServerReady = null;
const wireRequests = [];
let wireCaptured = null; // called once the server has a request: ends the call at once
let wireReply = null; // a provider's HTTP response to answer with (response.<api>), or null

function wireRedirect(input, url) {
	const target = new URL(url.pathname + url.search, wireTarget);
	return [input instanceof Request ? new Request(target, input) : target, target];
}

function wireServer() {
	wireServerReady ??= new Promise((resolve, reject) => {
		const server = createServer((req, res) => {
			const chunks = [];
			req.on("data", (chunk) => chunks.push(chunk));
			req.on("end", () => {
				wireRequests.push({ method: req.method, path: req.url, headers: req.headers, raw: decoded(Buffer.concat(chunks), req.headers["content-encoding"]) });
				if (wireReply !== null) {
					serveReply(res, wireReply);
					return;
				}
				wireCaptured?.();
				const body = JSON.stringify({ error: { type: "invalid_request_error", code: 400, message: "pi-conformance: request captured" } });
				// No Date header: the AWS SDK compares it with its clock, which a variation
				// shifts (PI_CONFORMANCE_CLOCK_OFFSET), takes the difference for clock skew
				// and retries, 90 ms a call, after sending the same request again.
				res.sendDate = false;
				res.writeHead(400, { "content-type": "application/json" });
				res.end(body);
			});
		});
		// Connections are kept for the next wire stage: a new one for each cost a fifth of
		// the CPU of answering every wire stage (a connect and an HTTP parser each). The server
		// never closes an idle one (0: no timeout), so pi-ai's client, which closes its own
		// idle ones, never sends on a connection being closed under it.
		server.keepAliveTimeout = 0;
		server.on("error", reject);
		server.listen(0, "127.0.0.1", () => {
			server.unref();
			resolve(`http://127.0.0.1:${server.address().port}`);
		});
	});
	return wireServerReady;
}

/** The body as sent before its content encoding (Codex compresses its JSON with zstd): the
 * golden keeps the JSON and the content-encoding header, so both are judged. */
function decoded(bytes, encoding) {
	const decode = { zstd: zlib.zstdDecompressSync, gzip: zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync }[encoding];
	try {
		return (decode ? decode(bytes) : bytes).toString("utf8");
	} catch (error) {
		return `pi-conformance: the body could not be decoded as ${encoding}: ${error.message}`;
	}
}

function wireRecord(received) {
	const headers = Object.fromEntries(
		Object.entries(received.headers).filter(([name]) => WIRE_HEADERS.includes(name)).sort(([a], [b]) => (a < b ? -1 : 1)),
	);
	let body = null;
	if (received.raw !== "") {
		try {
			body = JSON.parse(received.raw);
		} catch {
			return { method: received.method, path: received.path, headers, bodyText: received.raw };
		}
	}
	return { method: received.method, path: received.path, headers, body };
}

// ---- the credentials and routing each API needs, all fake and all on the loopback ----
//
// Every API gets `apiKey` ("sk-test-key" unless options.request says otherwise) and the
// session id, as a port is told to (docs/protocol.md). Where pi-ai needs more, or other, to
// build and send a request, it is given here; every value is a fake of the right form, and
// what it turns into on the wire (authorization, x-api-key, api-key, x-goog-api-key, SigV4's
// signature and date, Codex's account id) is left out of the golden by WIRE_HEADERS.
//
// * openai-codex-responses: the key is a ChatGPT account token, a JWT whose payload names
//   the account (pi-ai reads it for the chatgpt-account-id header); and the SSE transport,
//   because the default ("auto") opens a WebSocket first, which is not an HTTP request a
//   wire golden can hold (its frame carries the same body, uncompressed).
// * bedrock-converse-stream: no key (a key would be a Bedrock bearer token), but AWS access
//   keys and a region in the environment for the call (where every release reads them, and
//   the AWS SDK too), so the SDK signs with SigV4 as for most users; the AWS SDK sends with
//   node:http, not fetch, so its endpoint is pointed at the loopback server by the SDK's own
//   AWS_ENDPOINT_URL_BEDROCK_RUNTIME (the model, and so the path and body, unchanged), over
//   HTTP/1.1 (AWS_BEDROCK_FORCE_HTTP1), and the EC2 metadata service is never asked.
// * google-vertex: the key, so pi-ai uses Vertex's API-key mode; the ADC mode (project and
//   location, an OAuth token) would need Google's token service, and differs only in the
//   path (projects/<p>/locations/<l>/...) and the authorization header.
const FAKE_CODEX_TOKEN = fakeJwt({ "https://api.openai.com/auth": { chatgpt_account_id: "00000000-0000-4000-8000-000000000000" } });
// Each entry: (options.request, the loopback origin) -> {options: stream options, env: the
// environment variables set for the call only}.
const API_OPTIONS = {
	"openai-codex-responses": (request) => ({ options: { apiKey: request.apiKey ?? FAKE_CODEX_TOKEN, transport: "sse" } }),
	"bedrock-converse-stream": (request, origin) => ({
		options: { apiKey: request.apiKey },
		env: {
			AWS_ACCESS_KEY_ID: "AKIAIOSFODNN7EXAMPLE",
			AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
			AWS_REGION: "us-east-1",
			AWS_BEDROCK_FORCE_HTTP1: "1",
			AWS_EC2_METADATA_DISABLED: "true",
			// One attempt: the SDK retries a throttle or a 5xx on its own, whatever pi-ai's
			// maxRetries says, and a response golden answers one request.
			AWS_MAX_ATTEMPTS: "1",
			AWS_ENDPOINT_URL_BEDROCK_RUNTIME: origin,
		},
	}),
};

/** A JWT of the usual form (header, payload, signature), signed by nobody. */
function fakeJwt(payload) {
	const part = (value) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");
	return `${part({ alg: "RS256", typ: "JWT" })}.${part(payload)}.${part("pi-conformance: not a signature")}`;
}

/** The payload as JSON. An SDK's parameters may hold bytes (Bedrock's image `source.bytes`
 * is a Uint8Array), which JSON.stringify would write as an object keyed by index: they are
 * written in base64, as the SDK sends them. And they may hold the call's abort signal
 * (Google's `config.abortSignal`), which is the harness's, not the request's, and never sent:
 * left out, as if no signal had been given. Only here: no other stage holds either, and a
 * replacer slows every JSON.stringify. */
function plainPayload(params) {
	if (params === undefined) return null;
	return JSON.parse(JSON.stringify(params, (key, value) => {
		if (value instanceof AbortSignal) return undefined;
		return ArrayBuffer.isView(value) ? Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") : value;
	}));
}

/** A failure of the harness itself: the case's answer is an error, never a golden. */
class HarnessError extends Error {}

// ---- request.<api> and wire.<api>: one call of pi-ai's streamSimple gives both ----
//
// The payload as onPayload sees it (request.<api>) and the HTTP request as it goes out
// (wire.<api>) come from the same call: onPayload records the payload and lets it go on, to
// the loopback server. A case asking both stages of an API costs one call, not two.

async function providerCall(api, llmMessages, request) {
	if (!request?.model) throw new Error(`no model given for ${api} (options.request.models)`);
	const context = typeof piAi.normalizeContext === "function"
		? piAi.normalizeContext({ messages: llmMessages })
		: { messages: llmMessages };
	wireTarget = await wireServer();
	wireRequests.length = 0;
	blockedConnections.length = 0;
	let payload;
	let final;
	const { options: apiOptions = {}, env = {} } = API_OPTIONS[api]?.(request, wireTarget) ?? {};
	Object.assign(process.env, env);
	// Once the server has the request, the call is aborted: whatever a release or an SDK
	// would do next (retry after a delay, fall back to another transport) never happens, and
	// no second request comes. maxRetries: 0 is not enough: 0.73.1's Codex retries every
	// error three times, after 1, 2 and 4 seconds.
	const abort = new AbortController();
	wireCaptured = () => abort.abort();
	try {
		const stream = apis[api](request.model, context, {
			apiKey: request.apiKey ?? "sk-test-key",
			sessionId: request.sessionId ?? "sess-fixed",
			maxRetries: 0,
			signal: abort.signal,
			...apiOptions,
			...(request.reasoning ? { reasoning: request.reasoning } : {}),
			onPayload: (params) => {
				payload = plainPayload(params);
			},
		});
		final = await stream.result();
	} finally {
		wireTarget = null;
		wireCaptured = null;
		for (const name of Object.keys(env)) delete process.env[name];
	}
	if (wireRequests.length > 1) {
		throw new HarnessError(`${api}: pi-ai sent ${wireRequests.length} requests for one call (${wireRequests.map((r) => `${r.method} ${r.path}`).join(", ")}); the loopback server answers so that nothing is retried, and a golden holds one request`);
	}
	if (blockedConnections.length > 0) {
		throw new HarnessError(`${api}: pi-ai tried to reach ${blockedConnections.join(", ")} instead of the loopback server; nothing was sent, and the harness must route this API (API_OPTIONS)`);
	}
	return {
		request: payload === undefined
			? rejected(final?.errorMessage ?? "the adapter never built a request")
			: { output: payload },
		wire: wireRequests.length === 0
			? rejected(final?.errorMessage ?? "the adapter never sent a request")
			: { output: wireRecord(wireRequests[0]) },
	};
}

// ---- response.<api>: a provider's HTTP response, fed to pi-ai's own stream function ----
//
// The loopback server answers the call with the case's response: its status, its headers and
// its body in exactly the chunks the run request gives, each written on its own and followed
// by a turn of the event loop, so that pi-ai's client reads it apart from the next (the runner
// may cut the same body elsewhere: the answer must not change). Every AssistantMessageEvent is
// recorded as it is pushed, serialised at that moment, so `partial` is the message as pi-ai
// had built it then, whatever the consumer does later. The wall clock ticks a millisecond a
// reading during the call, and a varied run moves the reading that ends the response's timing
// (clocks.mjs says why).

function replyOf(response) {
	const chunks = response.chunks.map((chunk) => (chunk.base64 !== undefined ? Buffer.from(chunk.base64, "base64") : Buffer.from(chunk.text, "utf8")));
	return { status: response.status, headers: response.headers, chunks };
}

async function serveReply(res, reply) {
	const headers = {};
	for (const [name, value] of reply.headers) {
		const key = name.toLowerCase();
		headers[key] = key in headers ? [].concat(headers[key], value) : value;
	}
	res.sendDate = false;
	res.socket?.setNoDelay(true);
	res.writeHead(reply.status, headers);
	res.flushHeaders();
	// A turn of the event loop (its poll phase reads the last chunk on the client's side): one
	// read per chunk, measured 199 reads for 200 one-byte chunks.
	const pause = () => new Promise((resolve) => setImmediate(resolve));
	for (const chunk of reply.chunks) {
		if (res.destroyed) return;
		res.write(chunk);
		await pause();
	}
	res.end();
}

// In a varied run, how far ahead of the monotonic clock the reading that ends a response's
// timing is (the clock offset): the message's `durationMs` is then that much longer than in a
// plain run, never equal to it by chance, and so always found volatile, whatever the load.
const MONOTONIC_OFFSET = variation.clockOffset === undefined ? 0 : Number(variation.clockOffset);
// Whether pi-ai's responses are being timed for a golden now (a response call, a live turn).
let timingForGolden = false;

let recordPushes = null; // the events of the call under way, or null
function recordEvents() {
	const proto = piAi.AssistantMessageEventStream?.prototype;
	if (!proto || proto.piConformanceRecorded) return proto !== undefined;
	const push = proto.push;
	proto.push = function recordedPush(event) {
		const ending = event.type === "done" || event.type === "error";
		// The reading that ends the response's timing, ahead by the variation's offset.
		withMonotonicAhead(timingForGolden && ending ? MONOTONIC_OFFSET : 0, () => push.call(this, event));
		recordPushes?.push(JSON.parse(JSON.stringify(event)));
	};
	proto.piConformanceRecorded = true;
	return true;
}

async function responseCall(api, llmMessages, request, response) {
	if (!request?.model) throw new Error(`no model given for ${api} (options.request.models)`);
	if (!response) throw new HarnessError(`response.${api}: the run request gives no response for ${api} (its "responses" field)`);
	if (!recordEvents()) return { skipped: "this Pi release's pi-ai exports no AssistantMessageEventStream whose events could be recorded" };
	const context = typeof piAi.normalizeContext === "function"
		? piAi.normalizeContext({ messages: llmMessages })
		: { messages: llmMessages };
	wireTarget = await wireServer();
	wireRequests.length = 0;
	blockedConnections.length = 0;
	wireReply = replyOf(response);
	const events = [];
	recordPushes = events;
	const { options: apiOptions = {}, env = {} } = API_OPTIONS[api]?.(request, wireTarget) ?? {};
	Object.assign(process.env, env);
	const origin = wireTarget;
	let message;
	const restoreClock = tickWallClock();
	timingForGolden = true;
	try {
		const stream = apis[api](request.model, context, {
			apiKey: request.apiKey ?? "sk-test-key",
			sessionId: request.sessionId ?? "sess-fixed",
			maxRetries: 0,
			...apiOptions,
			...(request.reasoning ? { reasoning: request.reasoning } : {}),
		});
		message = await stream.result();
	} finally {
		timingForGolden = false;
		restoreClock();
		wireTarget = null;
		wireReply = null;
		recordPushes = null;
		for (const name of Object.keys(env)) delete process.env[name];
	}
	if (wireRequests.length > 1) {
		throw new HarnessError(`${api}: pi-ai sent ${wireRequests.length} requests for one response (${wireRequests.map((r) => `${r.method} ${r.path}`).join(", ")}); a response golden answers one request`);
	}
	if (blockedConnections.length > 0) {
		throw new HarnessError(`${api}: pi-ai tried to reach ${blockedConnections.join(", ")} instead of the loopback server`);
	}
	// The loopback server's port changes with every process: where Pi quotes the URL (an
	// SDK's error message), it is written as the fixed origin below, as the cwd is; and where
	// it quotes its own files (a stack trace in pi-messages' diagnostics), the installation's
	// path, which is this machine's, is written INSTALLATION.
	const text = JSON.stringify({ events, message }).replaceAll(origin, LOOPBACK_ORIGIN);
	const output = JSON.parse(text.replaceAll(JSON.stringify(resolve(prefix)).slice(1, -1), INSTALLATION));
	return { output };
}
const LOOPBACK_ORIGIN = "http://127.0.0.1:PORT";
const INSTALLATION = "<pi-installation>";

async function runCase(message) {
	const wanted = message.stages ?? STAGES;
	const cwd = message.options?.cwd ?? cwdDir;
	// Every module a stage needs is loaded before the first stage runs, and all loading has
	// ended before a stage that awaits; a failure to load Pi is an error of the harness
	// (thrown), never an answer of Pi's.
	await Promise.all(groupsFor(wanted).map(loadGroup));
	if (wanted.some((stage) => apiOf(stage) !== undefined || stage === "events")) await preloading.catch(() => {});
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
		const calls = {}; // api -> the promise of its providerCall, shared by request and wire
		for (const stage of wanted) {
			let result;
			if (!STAGES.includes(stage) && !capabilities.apis[apiOf(stage)]) {
				result = { skipped: `stage ${stage} is not available in this Pi release` };
			} else if (stage === "entries") {
				result = need(() => ({ header: plain(manager.getHeader()), entries: plain(manager.getEntries()) }));
			} else if (stage === "branch") result = need(() => branchStage(manager));
			else if (stage === "context") result = need(() => plain(getContext()));
			else if (stage === "projection") {
				result = need(() => ({
					entries: manager.buildSessionProjection().entries.map((e) => ({
						sourceEntryId: e.sourceEntry?.id ?? null,
						messages: plain(e.messages),
					})),
				}));
			} else if (stage === "llm") result = need(() => plain(getLlm()));
			else if (stage === "prompt") result = need(() => promptStage(getLlm()));
			else if (stage === "stats") result = need(() => statsStage(manager, getContext));
			else if (stage === "events") result = await eventsAnswer(message, cwd);
			else if (stage.startsWith("response.")) {
				const api = apiOf(stage);
				try {
					result = await responseCall(api, getLlm(), {
						...(message.options?.request ?? {}),
						model: message.options?.request?.models?.[api],
					}, message.responses?.[api]);
				} catch (error) {
					if (error instanceof HarnessError) throw error;
					result = rejected(error);
				}
			} else {
				const [kind, api] = [stage.slice(0, stage.indexOf(".")), apiOf(stage)];
				try {
					calls[api] ??= providerCall(api, getLlm(), {
						...(message.options?.request ?? {}),
						model: message.options?.request?.models?.[api],
					});
					result = (await calls[api])[kind];
				} catch (error) {
					if (error instanceof HarnessError) throw error;
					result = rejected(error);
				}
			}
			if (result.output !== undefined) result.output = replaceCwd(result.output, cwd);
			results[stage] = result;
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	return results;
}

/** The events stage (events.mjs): a live turn of Pi's agent session over another copy. A
 * case without a turn script (a capture's events come from the CLI) is skipped; a problem
 * with the script is the harness's error, never a golden. */
async function eventsAnswer(message, cwd) {
	if (message.turns === undefined) return { skipped: "no turn script (turns) in the run request: the reference runs the events stage only for a case with one" };
	const dir = mkdtempSync(join(scratch, "run-"));
	try {
		recordEvents(); // so that a turn's responses are timed for a golden as a response's are
		timingForGolden = true;
		try {
			return { output: await eventsStage(eventsModules, message.session.path, message.turns, dir, cwd) };
		} finally {
			timingForGolden = false;
		}
	} catch (error) {
		if (error instanceof TurnScriptError) throw new HarnessError(`events: ${error.message}`);
		return rejected(error);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** The API id of a request.<api>, wire.<api> or response.<api> stage. */
function apiOf(stage) {
	const match = /^(request|wire|response)\.(.+)$/.exec(stage);
	return match ? match[2] : undefined;
}

function hello() {
	const codingAgent = `${scope}/pi-coding-agent`;
	const versions = {
		[codingAgent]: version("pi-coding-agent"),
		[`${scope}/pi-ai`]: version("pi-ai"),
		[`${scope}/pi-agent-core`]: version("pi-agent-core"),
		node: process.versions.node,
	};
	return {
		protocol: PROTOCOL,
		implementation: {
			name: helloName ?? codingAgent,
			version: versions[codingAgent],
			language: "javascript",
			homepage: `https://www.npmjs.com/package/${codingAgent}`,
			issues: scope === "@mariozechner" ? "https://github.com/badlogic/pi-mono/issues" : "https://github.com/earendil-works/pi/issues",
			dependencies: versions,
		},
		capabilities: {
			stages: [...STAGES, ...["request", "wire", "response"].flatMap((kind) => Object.keys(capabilities.apis).map((api) => `${kind}.${api}`))],
		},
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
	if (message.cmd === "hello") {
		write(hello());
		preloadTheRest();
	}
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
