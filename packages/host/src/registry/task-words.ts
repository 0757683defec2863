/**
 * A task as a person writes it, made closer to the words tools are described with: argument values said as what
 * they are, and the everyday words for what tools do matched with the words their descriptions use.
 */

/**
 * A task with its argument values said as what they are: a URL as "url", a file name as "file", a number as
 * "number". `summarize https://example.com/a.pdf`, `read old-notes.txt` and `add 17 and 25` then match tools by what
 * they take (a url, a file, numbers), not by the words of one value (old, notes), which would match other tools' names.
 *
 * @example
 * taskWords("remove old-notes.txt") // "remove  file "
 */
export function taskWords(text: string): string {
  return text.replace(URL, " url ").replace(FILE_NAME, " file ").replace(NUMBER, " number ");
}

/**
 * Each stemmed word of SYNONYMS with the other words of its groups, stemmed the same way: a task says "remove",
 * "folder" or "make", a description "delete", "directory" or "create".
 *
 * @example
 * synonymsOf(stem).get("remov") // ["delet", "eras", …]
 */
export function synonymsOf(stem: (word: string) => string): ReadonlyMap<string, readonly string[]> {
  const out = new Map<string, string[]>();
  for (const group of SYNONYMS) {
    const stems = group.split(" ").map((word) => stem(word));
    for (const one of stems) {
      const others = out.get(one) ?? [];
      for (const other of stems) if (other !== one && !others.includes(other)) others.push(other);
      out.set(one, others);
    }
  }
  return out;
}

// --- internal ---

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
/** A file name with a common extension (not .js or .ts: library names end so too, next.js). */
const FILE_NAME =
  /(?<![\w.])[\w-]+\.(?:txt|md|markdown|json|ya?ml|csv|tsv|pdf|docx?|xlsx?|pptx?|png|jpe?g|gif|svg|webp|log|py|go|rs|java|html?|css|xml|toml|ini|sh|zip|tar|gz)(?![\w.])/gi;
const NUMBER = /(?<![\w.])\d+(?:\.\d+)*(?![\w.])/g;

/**
 * Words that name the same action or thing in tasks and in tool descriptions, a group a line. Only everyday
 * vocabulary of software tools: a word a task uses also finds tools described with another word of its group.
 */
const SYNONYMS = [
  // what tools do
  "delete remove erase destroy trash drop purge discard wipe forget",
  "create make new add generate put insert",
  "find search lookup locate query",
  "get fetch retrieve read show view display open",
  "update edit modify change alter patch",
  "run execute launch invoke trigger evaluate",
  "stop kill terminate cancel abort halt",
  "move rename relocate",
  "copy duplicate clone",
  "send post publish push share",
  "reply respond answer",
  "link connect associate relate relation relationship association connection",
  "save store keep remember persist",
  "upload attach attachment",
  "undo revert reset rollback restore",
  "watch monitor track observe subscribe",
  "merge combine",
  "sum add total plus aggregate",
  "summary summarize overview",
  "explain describe",
  "emulate simulate pretend mock",
  "verify validate check",
  "screenshot capture snapshot",
  "click press tap",
  "navigate visit browse go",
  "deploy ship",
  // what they act on
  "folder directory",
  "settings setting config configuration options preferences",
  "user person people member everyone everybody",
  "team group organization organisation org",
  "issue ticket bug",
  "repository repo",
  "page website webpage site",
  "email mail",
  "error failure failing fail crash exception bug",
  "image picture photo",
  "history audit activity",
  "info information details detail metadata",
  "field column property attribute",
  "row record entry",
  "label tag",
  "sprint cycle iteration",
  "database db",
  "kubernetes k8s kubectl",
  "javascript js",
  "distance route directions drive driving travel commute",
  "elevation altitude height",
  "place venue restaurant cafe business",
];
