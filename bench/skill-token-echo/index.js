// The credentials benchmark's tool: bench/skill-echo's echo, from a skill that declares a token. An instance given
// the host's own token and an instance whose token each caller brings run the same code: the difference between
// their calls is what resolving a caller's credential costs.
import { defineSkill, defineTool } from "@skillport/core";

export const register = defineSkill({
  name: "token-echo",
  credentials: { token: { description: "a token the call gets (unused)", required: true } },
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
      run: (p, ctx) => ({ text: p.text, token: ctx.token !== undefined }),
    }),
  ],
});
