import fs from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verificationMail } from '../../src/server/mail/templates.ts';

/*
 * The README and docs/ are written for someone who has only the repository (docs/README.md): every
 * link they make resolves to a file in it or to a web address, and the README's first-run text
 * names what a newcomer really sees.
 */

const root = path.resolve(import.meta.dirname, '../..');

async function markdownFiles(): Promise<string[]> {
  const docs = await fs.readdir(path.join(root, 'docs'), { recursive: true });
  return ['README.md', ...docs.filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f))];
}

/** Markdown link targets: [text](target) and <target>, without the #fragment; code spans are not links. */
function linksOf(text: string): string[] {
  const markdown = text.replace(/`[^`\n]*`/g, '');
  const inline = [...markdown.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
  const angle = [...markdown.matchAll(/<((?:https?:\/\/|\.{0,2}\/)[^>\s]+)>/g)].map((m) => m[1]!);
  return [...inline, ...angle];
}

describe('README and docs/', () => {
  it('link only to files in the repository (or to web addresses), and every such file exists', async () => {
    const broken: string[] = [];
    for (const file of await markdownFiles()) {
      const text = await fs.readFile(path.join(root, file), 'utf8');
      for (const link of linksOf(text)) {
        if (/^(https?:|mailto:)/.test(link) || link.startsWith('#')) continue;
        const target = path.resolve(path.dirname(path.join(root, file)), decodeURI(link.split('#')[0]!));
        if (!target.startsWith(root + path.sep)) {
          broken.push(`${file}: ${link} leaves the repository`);
          continue;
        }
        await fs.access(target).catch(() => broken.push(`${file}: ${link} does not exist`));
      }
    }
    expect(broken).toEqual([]);
  });

  it("tells a newcomer to verify the first account from /dev/mailbox, naming the mail's subject", async () => {
    const readme = await fs.readFile(path.join(root, 'README.md'), 'utf8');
    const mail = verificationMail({ publicUrl: 'http://localhost:3000', token: 'x' });
    expect(readme).toContain('/dev/mailbox');
    expect(readme).toContain(`"${mail.subject}"`);
  });
});
