// The benchmark's tool: echo a string back, with the same input schema the raw SDK server declares. Its optional
// token is for bench/credentials.mjs, which gives one instance the host's token and another each caller's own.
import { defineSkill, defineTool } from "@skillport/core";

export const register = defineSkill({
  name: "bench",
  credentials: { token: { description: "a token the call gets (unused)", required: false } },
  tools: [
    defineTool({
      name: "echo",
      title: "Echo",
      description: "Echo the text back.",
      input: {
        type: "object",
        properties: { text: { type: "string", maxLength: 1000, description: "what to echo" } },
        required: ["text"],
        additionalProperties: false,
      },
      risk: "read_only",
      run: (p) => ({ text: p.text }),
    }),
  ],
});
