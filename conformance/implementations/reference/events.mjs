// The `events` stage of the reference harness: a live turn of Pi's own agent session.
//
// pi-coding-agent's `createAgentSession` opens a copy of the case's session file (a
// SessionManager of its own, in a private directory), with a temporary HOME and agent
// directory, in-memory settings (no retry, no compaction, no cache warming), a minimal
// resource loader (a fixed short system prompt, no discovery) and one model, `fake/fake-model`,
// whose provider is a loopback server of this module on 127.0.0.1. Each prompt of the turn
// script runs with `session.prompt`; each provider request is answered with the next scripted
// HTTP response (status, headers, body); each tool call with the scripted result of a custom
// tool registered through the SDK. The answer is what Pi did:
//
//   events    every event the session emits to its listeners (`session.subscribe`: the
//             lifecycle an extension and RPC mode see), serialised with JSON.stringify at the
//             moment it is emitted
//   appended  the entries Pi appended to the file: the file's lines after the turn, less the
//             lines it had once opened (a file Pi migrates on open is compared as migrated)
//   context   `buildSessionContext()` of the file after the turn, opened again: the replay
//   live      the session's own messages (`session.messages`) after the last prompt: the live
//             state a renderer built from the stream would show
//
// Pi's answer must not depend on timing, so that the goldens are exact:
//  * the body reaches pi-ai in the scripted chunks, one at a time, each after Pi has handled
//    the one before (two turns of the event loop; nothing in between waits on a timer), so
//    every snapshot an event carries is the same on every run;
//  * the wall clock ticks a millisecond a reading from the harness's possibly shifted `now`,
//    and `performance.now` stands still, so every `durationMs` is 0 in a plain run and the
//    clock offset in a varied one (clocks.mjs). Timestamps and the ids Pi
//    draws (from the harness's seeded randomness) are found volatile by regenerate's varied
//    runs, as for every golden.

import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tickWallClock } from "./clocks.mjs";
import { createServer } from "node:http";
import { join } from "node:path";

export const PROVIDER = "fake";
export const MODEL_ID = "fake-model";
// What follows 127.0.0.1:PORT in the provider's baseUrl, as the real services spell theirs
// (the Anthropic SDK adds /v1 itself); the same as the captures' fake provider.
const BASE_PATH = { "anthropic-messages": "", "google-generative-ai": "/v1beta" };
const DEFAULT_MODEL = {
	id: MODEL_ID,
	name: "Fake Model",
	reasoning: false,
	input: ["text"],
	contextWindow: 100000,
	maxTokens: 1000,
	cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1.5 },
};
export const SYSTEM_PROMPT = "You are a test assistant.";
const SETTINGS = { retry: { enabled: false }, compaction: { enabled: false }, cacheWarming: "off" };
// The APIs whose provider clients send with fetch (the loopback delivery below needs it).
export const EVENT_APIS = ["anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"];

/** The modules the stage needs, loaded once: `load(package, file)` is the harness's. */
export async function loadEventsModules(load) {
	const [sdk, sessionManager, settingsManager, modelRuntime, loader] = await Promise.all([
		load("pi-coding-agent", "dist/core/sdk.js"),
		load("pi-coding-agent", "dist/core/session-manager.js"),
		load("pi-coding-agent", "dist/core/settings-manager.js"),
		load("pi-coding-agent", "dist/core/model-runtime.js"),
		load("pi-coding-agent", "dist/core/extensions/loader.js"),
	]);
	return {
		createAgentSession: sdk.createAgentSession,
		SessionManager: sessionManager.SessionManager,
		SettingsManager: settingsManager.SettingsManager,
		ModelRuntime: modelRuntime.ModelRuntime,
		createExtensionRuntime: loader.createExtensionRuntime,
	};
}

/** Whether this release has what the stage needs (capabilities are detected, never assumed). */
export function hasEventsModules(has) {
	return ["dist/core/sdk.js", "dist/core/settings-manager.js", "dist/core/model-runtime.js", "dist/core/extensions/loader.js"]
		.every((file) => has("pi-coding-agent", file));
}

/** A problem with the turn script itself: the case's input is wrong, never Pi's answer. */
export class TurnScriptError extends Error {}

function checkScript(turns) {
	if (!turns || typeof turns !== "object") throw new TurnScriptError("the run request has no `turns` for the events stage");
	if (!EVENT_APIS.includes(turns.api)) throw new TurnScriptError(`turns.api must be one of ${EVENT_APIS.join(", ")}, not ${JSON.stringify(turns.api)}`);
	if (!Array.isArray(turns.prompts) || turns.prompts.length === 0 || !turns.prompts.every((p) => typeof p === "string")) {
		throw new TurnScriptError("turns.prompts must be a non-empty list of strings");
	}
	if (!Array.isArray(turns.responses)) throw new TurnScriptError("turns.responses must be a list of HTTP responses");
	for (const tool of turns.tools ?? []) {
		if (typeof tool?.name !== "string" || !Array.isArray(tool.results)) throw new TurnScriptError("each of turns.tools needs a name and a list of results");
	}
}

/** The loopback provider: each request gets the next scripted response, in order. */
function startProvider(responses) {
	const state = { served: 0, requests: [], extra: 0 };
	return new Promise((resolve, reject) => {
		const server = createServer((req, res) => {
			req.resume();
			req.on("end", () => {
				state.requests.push(`${req.method} ${req.url}`);
				const response = responses[state.served];
				if (response === undefined) {
					state.extra += 1;
					res.sendDate = false;
					res.writeHead(500, { "content-type": "application/json" });
					res.end(JSON.stringify({ error: { message: "pi-conformance: no scripted response left" } }));
					return;
				}
				state.served += 1;
				res.sendDate = false;
				res.writeHead(response.status, Object.fromEntries(response.headers));
				for (const chunk of response.chunks) res.write(chunkBytes(chunk));
				res.end();
			});
		});
		server.on("error", reject);
		server.listen(0, "127.0.0.1", () => resolve({ server, state, origin: `http://127.0.0.1:${server.address().port}` }));
	});
}

function chunkBytes(chunk) {
	return chunk.base64 !== undefined ? Buffer.from(chunk.base64, "base64") : Buffer.from(chunk.text, "utf8");
}

const settle = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)));

/** fetch, for the loopback provider's origin: the body handed over in the scripted chunks,
 * each once Pi has handled the one before. Any other request goes to `inner` unchanged. */
function pacedFetch(inner, origin, responses, state) {
	return async (input, init) => {
		const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
		if (url.origin !== origin) return inner(input, init);
		const index = state.served; // the response the server is about to send
		const response = await inner(input, init);
		const script = responses[index];
		if (script === undefined || response.body === null) return response;
		const bytes = new Uint8Array(await response.arrayBuffer());
		const sizes = script.chunks.map((chunk) => chunkBytes(chunk).length);
		let at = 0;
		let next = 0;
		const body = new ReadableStream({
			async pull(controller) {
				if (next > 0) await settle();
				if (next >= sizes.length || at >= bytes.length) {
					controller.close();
					return;
				}
				controller.enqueue(bytes.slice(at, at + sizes[next]));
				at += sizes[next];
				next += 1;
			},
		}, { highWaterMark: 0 });
		return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
	};
}

/** The clocks of a turn (clocks.mjs): the wall clock ticking, the monotonic one, which pi-ai
 * and the agent loop time with, standing still at its current reading; returns the function
 * that restores both. */
function stopClock() {
	const restoreWallClock = tickWallClock();
	const monotonic = performance.now();
	performance.now = () => monotonic;
	return () => {
		restoreWallClock();
		delete performance.now; // the prototype's again
	};
}

/** A tool of the script: each call takes the next scripted result of its name. A call with
 * none left is a problem of the script (`problems`), reported once the turn is over. */
function scriptedTool(tool, problems) {
	let call = 0;
	return {
		name: tool.name,
		label: tool.name,
		description: tool.description ?? `A scripted tool (${tool.name}).`,
		parameters: tool.parameters ?? { type: "object", properties: {}, additionalProperties: true },
		async execute(toolCallId, params, signal, onUpdate) {
			const result = tool.results[call];
			call += 1;
			if (result === undefined) {
				problems.push(`Pi called ${tool.name} ${call} time(s); the script has ${tool.results.length} result(s)`);
				throw new Error(`pi-conformance: no scripted result left for ${tool.name}`);
			}
			if (result.update !== undefined) onUpdate?.({ content: [{ type: "text", text: result.update }], details: {} });
			if (result.isError) throw new Error(result.text);
			return { content: [{ type: "text", text: result.text }], details: result.details ?? {} };
		},
	};
}

function resourceLoader(createExtensionRuntime) {
	return {
		getExtensions: () => ({ extensions: [], errors: [], runtime: createExtensionRuntime() }),
		getSkills: () => ({ skills: [], diagnostics: [] }),
		getPrompts: () => ({ prompts: [], diagnostics: [] }),
		getThemes: () => ({ themes: [], diagnostics: [] }),
		getAgentsFiles: () => ({ agentsFiles: [] }),
		getSystemPrompt: () => SYSTEM_PROMPT,
		getSystemPromptSource: () => undefined,
		getAppendSystemPrompt: () => [],
		getAppendSystemPromptSources: () => [],
		extendResources: () => {},
		reload: async () => {},
	};
}

const readLines = (path) => readFileSync(path, "utf8").split("\n").filter((line) => line.trim() !== "");

function parsedLine(line) {
	try {
		return JSON.parse(line);
	} catch {
		return line; // a line Pi wrote that is not JSON is shown as it is
	}
}

/**
 * One events stage: the turn script run against a copy of `sessionPath` in `dir` (a private
 * directory the caller removes). `modules` from loadEventsModules; `cwd` the directory Pi
 * works in. Returns the stage's output, or throws Pi's own error (the caller makes it a
 * rejection) or a TurnScriptError.
 */
export async function eventsStage(modules, sessionPath, turns, dir, cwd) {
	checkScript(turns);
	const home = join(dir, "home");
	const agentDir = join(dir, "agent");
	mkdirSync(home);
	mkdirSync(agentDir);
	const copy = join(dir, "events-session.jsonl");
	copyFileSync(sessionPath, copy);
	const provider = await startProvider(turns.responses);
	const saved = { HOME: process.env.HOME, PI_CODING_AGENT_DIR: process.env.PI_CODING_AGENT_DIR, fetch: globalThis.fetch };
	process.env.HOME = home;
	process.env.PI_CODING_AGENT_DIR = agentDir;
	const model = { ...DEFAULT_MODEL, ...(turns.model ?? {}), id: MODEL_ID, api: turns.api };
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({
		providers: {
			[PROVIDER]: { baseUrl: provider.origin + (BASE_PATH[turns.api] ?? "/v1"), apiKey: "test-key", api: turns.api, models: [model] },
		},
	}));
	globalThis.fetch = pacedFetch(saved.fetch, provider.origin, turns.responses, provider.state);
	const startClock = stopClock();
	const events = [];
	const problems = [];
	let session;
	try {
		const manager = modules.SessionManager.open(copy, join(dir, "sessions"));
		const before = readLines(copy);
		const modelRuntime = await modules.ModelRuntime.create({ authPath: join(agentDir, "auth.json"), modelsPath: join(agentDir, "models.json") });
		const chosen = modelRuntime.getModel(PROVIDER, MODEL_ID);
		if (!chosen) throw new Error(`pi-conformance: Pi did not register ${PROVIDER}/${MODEL_ID} from models.json`);
		({ session } = await modules.createAgentSession({
			cwd,
			agentDir,
			modelRuntime,
			model: chosen,
			...(turns.thinkingLevel ? { thinkingLevel: turns.thinkingLevel } : {}),
			sessionManager: manager,
			settingsManager: modules.SettingsManager.inMemory(SETTINGS),
			resourceLoader: resourceLoader(modules.createExtensionRuntime),
			noTools: "builtin",
			customTools: (turns.tools ?? []).map((tool) => scriptedTool(tool, problems)),
		}));
		session.subscribe((event) => {
			events.push(JSON.parse(JSON.stringify(event)));
		});
		for (const prompt of turns.prompts) await session.prompt(prompt);
		if (provider.state.extra > 0) {
			problems.push(`Pi sent ${turns.responses.length + provider.state.extra} provider request(s); the script has ${turns.responses.length} response(s)`);
		}
		if (problems.length > 0) throw new TurnScriptError(problems.join("; "));
		const live = JSON.parse(JSON.stringify(session.messages));
		session.dispose();
		session = undefined;
		const after = readLines(copy);
		let same = 0;
		while (same < before.length && same < after.length && before[same] === after[same]) same += 1;
		const replay = modules.SessionManager.open(copy, join(dir, "sessions"));
		return {
			events,
			appended: after.slice(same).map(parsedLine),
			context: JSON.parse(JSON.stringify(replay.buildSessionContext())),
			live: { messages: live },
		};
	} finally {
		session?.dispose();
		startClock();
		globalThis.fetch = saved.fetch;
		for (const name of ["HOME", "PI_CODING_AGENT_DIR"]) {
			if (saved[name] === undefined) delete process.env[name];
			else process.env[name] = saved[name];
		}
		provider.server.close();
		provider.server.closeAllConnections?.();
	}
}
