// The benchmark's tool: echo a string back, with the same input schema the raw SDK server declares.
import { defineSkill, defineTool } from "@skillport/core";

export const register = defineSkill({
  name: "bench",
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
