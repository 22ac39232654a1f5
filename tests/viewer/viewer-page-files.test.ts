import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATH, generatedModule } from '../../src/viewer/page/build-page.js';
import { viewerPage } from '../../src/viewer/viewer-page.js';

// The page is made from src/viewer/page/ (decision 0048); tests and examples serve the committed module.
describe('the viewer page module', () => {
  it('is what build-page.ts makes of index.html, viewer.css and viewer.ts', async () => {
    const { text } = await generatedModule();
    const committed = await readFile(GENERATED_PATH, 'utf8');
    expect(committed === text, 'page-html.generated.ts is stale: run `npx tsx src/viewer/page/build-page.ts`').toBe(true);
  });

  it('is one document with one style and one script inline, both carrying the nonce', () => {
    const page = viewerPage('n0nce+/=');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page.match(/<style\b[^>]*>/g)).toEqual(['<style nonce="n0nce+/=">']);
    expect(page.match(/<script\b[^>]*>/g)).toEqual(['<script nonce="n0nce+/=">']);
    expect(page.match(/<\/script/gi)).toHaveLength(1);
    expect(page).not.toContain('__NONCE__');
    expect(page).not.toMatch(/<link\b|\bsrc=/);
  });
});
