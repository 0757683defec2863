// The public MCP servers whose published tool definitions bench/discovery.mjs composes, and how
// record-fixtures.mjs starts each one to list them: its npm package, the command it installs, arguments, and dummy
// credentials where a server refuses to start without one (none of them is used: only tools/list is asked). Only
// servers under an open-source license are recorded (MIT, Apache-2.0, ISC).
export const SOURCES = [
  // The official reference servers (github.com/modelcontextprotocol/servers; MIT, as their READMEs state).
  { id: "fs", package: "@modelcontextprotocol/server-filesystem", args: ["$SCRATCH"], license: "MIT" },
  { id: "memory", package: "@modelcontextprotocol/server-memory", license: "MIT" },
  { id: "everything", package: "@modelcontextprotocol/server-everything", args: ["stdio"], license: "MIT" },
  { id: "thinking", package: "@modelcontextprotocol/server-sequential-thinking", license: "MIT" },
  { id: "ghref", package: "@modelcontextprotocol/server-github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: "dummy" } },
  {
    id: "gitlab",
    package: "@modelcontextprotocol/server-gitlab",
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: "dummy" },
  },
  { id: "puppeteer", package: "@modelcontextprotocol/server-puppeteer" },
  { id: "brave", package: "@modelcontextprotocol/server-brave-search", env: { BRAVE_API_KEY: "dummy" } },
  {
    id: "slack",
    package: "@modelcontextprotocol/server-slack",
    env: { SLACK_BOT_TOKEN: "dummy", SLACK_TEAM_ID: "T0" },
  },
  { id: "maps", package: "@modelcontextprotocol/server-google-maps", env: { GOOGLE_MAPS_API_KEY: "dummy" } },
  { id: "postgres", package: "@modelcontextprotocol/server-postgres", args: ["postgresql://127.0.0.1:1/none"] },
  { id: "everart", package: "@modelcontextprotocol/server-everart", env: { EVERART_API_KEY: "dummy" } },
  {
    id: "awskb",
    package: "@modelcontextprotocol/server-aws-kb-retrieval",
    env: { AWS_ACCESS_KEY_ID: "dummy", AWS_SECRET_ACCESS_KEY: "dummy", AWS_REGION: "us-east-1" },
  },
  // Public servers of services and tools.
  { id: "playwright", package: "@playwright/mcp", args: ["--headless"] },
  { id: "notion", package: "@notionhq/notion-mcp-server", env: { NOTION_TOKEN: "dummy" } },
  { id: "firecrawl", package: "firecrawl-mcp", env: { FIRECRAWL_API_KEY: "fc-dummy" } },
  { id: "devtools", package: "chrome-devtools-mcp", bin: "chrome-devtools-mcp" },
  { id: "mongodb", package: "mongodb-mcp-server" },
  { id: "neon", package: "@neondatabase/mcp-server-neon", args: ["start", "dummy"] },
  { id: "commander", package: "@wonderwhy-er/desktop-commander", bin: "desktop-commander" },
  { id: "k8s", package: "mcp-server-kubernetes" },
  { id: "airtable", package: "airtable-mcp-server", env: { AIRTABLE_API_KEY: "dummy" } },
  { id: "context7", package: "@upstash/context7-mcp" },
  { id: "exa", package: "exa-mcp-server", env: { EXA_API_KEY: "dummy" }, license: "MIT" },
  { id: "tavily", package: "tavily-mcp", env: { TAVILY_API_KEY: "dummy" } },
  { id: "hubspot", package: "@hubspot/mcp-server", env: { PRIVATE_APP_ACCESS_TOKEN: "dummy" } },
  { id: "git", package: "@cyanheads/git-mcp-server" },
  { id: "circleci", package: "@circleci/mcp-server-circleci", env: { CIRCLECI_TOKEN: "dummy" } },
  { id: "bravenew", package: "@brave/brave-search-mcp-server", env: { BRAVE_API_KEY: "dummy" } },
  {
    id: "browserbase",
    package: "@browserbasehq/mcp-server-browserbase",
    env: { BROWSERBASE_API_KEY: "dummy", BROWSERBASE_PROJECT_ID: "dummy", GEMINI_API_KEY: "dummy" },
  },
  { id: "launchdarkly", package: "@launchdarkly/mcp-server", args: ["start", "--api-key", "dummy"] },
  {
    id: "jira",
    package: "@aashari/mcp-server-atlassian-jira",
    env: { ATLASSIAN_SITE_NAME: "example", ATLASSIAN_USER_EMAIL: "a@example.com", ATLASSIAN_API_TOKEN: "dummy" },
  },
  { id: "autoplay", package: "@executeautomation/playwright-mcp-server" },
  { id: "linear", package: "@tacticlaunch/mcp-linear", env: { LINEAR_API_TOKEN: "dummy" } },
  { id: "trello", package: "@delorenj/mcp-server-trello", env: { TRELLO_API_KEY: "dummy", TRELLO_TOKEN: "dummy" } },
  {
    id: "elastic",
    package: "@elastic/mcp-server-elasticsearch",
    env: { ES_URL: "http://127.0.0.1:1", ES_API_KEY: "dummy" },
  },
  { id: "netlify", package: "@netlify/mcp" },
  { id: "pinecone", package: "@pinecone-database/mcp", env: { PINECONE_API_KEY: "dummy" } },
  {
    id: "line",
    package: "@line/line-bot-mcp-server",
    env: { CHANNEL_ACCESS_TOKEN: "dummy", DESTINATION_USER_ID: "U0" },
  },
  { id: "pubmed", package: "@cyanheads/pubmed-mcp-server" },
];
