// What dist/ajv.cjs exports (scripts/generate-validators.mjs bundles it): the two things the host's ajv.ts takes.
const { Ajv2020 } = require("ajv/dist/2020.js");
const addFormats = require("ajv-formats");

module.exports = { Ajv2020, addFormats: addFormats.default };
