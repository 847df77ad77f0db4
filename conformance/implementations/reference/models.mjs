#!/usr/bin/env node
// Prints the model objects the request.<api> stages use, read from Pi's own catalog.
// openai-completions has no neutral built-in, so it is a custom-provider model on a
// loopback URL, the way a user's models.json would declare one.
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
