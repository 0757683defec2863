// The tasks benchmark's tools: the same echo twice, once a plain tool and once one that may run as a task.
import { defineSkill, defineTool } from "@skillport/core";

const input = {
  type: "object",
  properties: { text: { type: "string", maxLength: 1000, description: "what to echo" } },
  required: ["text"],
  additionalProperties: false,
};
const echo = (p) => ({ text: p.text });

export const register = defineSkill({
  name: "bench",
  tools: [
    defineTool({
      name: "echo",
      title: "Echo",
      description: "Echo the text back.",
      input,
      risk: "read_only",
      run: echo,
    }),
    defineTool({
      name: "echo_task",
      title: "Echo as a task",
      description: "Echo the text back; may run as a task.",
      input,
      risk: "read_only",
      task: "optional",
      run: echo,
    }),
  ],
});
