// Docker's .dockerignore rules (moby/patternmatcher, as `docker build` applies them): one pattern a
// line, `#` comments and blank lines skipped, each pattern cleaned (a leading or trailing `/`
// dropped); `*` is any run of characters but `/`, `?` one such character, `**` any number of
// directories (none too), `[...]` a character class, `\` escapes; a `!` pattern re-includes what an
// earlier one excluded, and the last pattern that matches decides. A pattern matches a path when it
// matches the path itself or any of its parent directories, so `data` excludes `data/pglite/base`.
import path from 'node:path';

interface Rule {
  expression: RegExp;
  exclusion: boolean;
}

function compile(pattern: string): RegExp {
  let body = '';
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index];
    if (char === '*') {
      if (pattern[index + 1] === '*') {
        index++;
        if (pattern[index + 1] === '/') index++;
        body += index + 1 >= pattern.length ? '.*' : '(?:.*/)?';
      } else {
        body += '[^/]*';
      }
    } else if (char === '?') body += '[^/]';
    else if (char === '\\' && index + 1 < pattern.length) body += `\\${pattern[++index]}`;
    else if (char === '[' || char === ']') body += char;
    else body += /[.+^${}()|\\]/.test(char) ? `\\${char}` : char;
  }
  return new RegExp(`^${body}$`);
}

/** The rules of a .dockerignore text. */
export function dockerignoreRules(text: string): Rule[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const exclusion = line.startsWith('!');
      const cleaned = path.posix.normalize((exclusion ? line.slice(1) : line).trim()).replace(/^\/+/, '').replace(/\/+$/, '');
      return { expression: compile(cleaned), exclusion };
    });
}

/** Whether a context-relative path (`a/b/c`, slashes) is left out of the build context. */
export function isIgnored(rules: readonly Rule[], relative: string): boolean {
  const parts = relative.split('/');
  const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
  let ignored = false;
  for (const rule of rules) {
    if (candidates.some((candidate) => rule.expression.test(candidate))) ignored = !rule.exclusion;
  }
  return ignored;
}
