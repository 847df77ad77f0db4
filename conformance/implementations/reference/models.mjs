#!/usr/bin/env node
// Prints the model objects the request.<api> stages use, read from Pi's own catalog: one per
// API pi-ai knows, reasoning-capable where the API has such a model.
// openai-completions has no neutral built-in, so it is a custom-provider model on a
// loopback URL, the way a user's models.json would declare one. Azure's catalog models have
// no baseUrl (a user names their resource), so the azure model gets one, with a resource name
// of our own, the way a user's models.json would; nothing is ever sent there (harness.mjs).
// Usage: node models.mjs <prefix>
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const prefix = process.argv[2];
const compat = await import(
	pathToFileURL(join(prefix, "node_modules/@earendil-works/pi-ai/dist/compat.js")).href
);
const models = {
	"anthropic-messages": compat.getModel("anthropic", "claude-sonnet-4-5"),
	"openai-responses": compat.getModel("openai", "gpt-5"),
	"google-generative-ai": compat.getModel("google", "gemini-2.5-pro"),
	"azure-openai-responses": {
		...compat.getModel("azure", "gpt-5"),
		baseUrl: "https://pi-conformance.openai.azure.com/openai/v1",
	},
	"openai-codex-responses": compat.getModel("openai-codex", "gpt-5.6-sol"),
	"mistral-conversations": compat.getModel("mistral", "mistral-large-latest"),
	"bedrock-converse-stream": compat.getModel("amazon-bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0"),
	"google-vertex": compat.getModel("google-vertex", "gemini-2.5-pro"),
	"pi-messages": compat.getModel("radius", "claude-sonnet-4-5"),
	"openai-completions": {
		id: "fake-model",
		name: "Fake model (custom provider)",
		api: "openai-completions",
		provider: "fake",
		baseUrl: "http://127.0.0.1:1/v1",
		reasoning: false,
		input: ["text", "image"],
		cost: { input: 1, output: 2, cacheRead: 0.5, cacheWrite: 1.25 },
		contextWindow: 128000,
		maxTokens: 4096,
	},
};
process.stdout.write(`${JSON.stringify(models, null, 2)}\n`);
