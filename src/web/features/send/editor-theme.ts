import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags as t } from '@lezer/highlight';
import type { Theme } from '../../lib/theme.ts';

/**
 * The HTML editor's colours, in the app's palette (Tailwind's slate and brand), for both app
 * themes. Every colour that carries text, the placeholder included, reaches WCAG AA (4.5:1) on
 * the editor's background: the light palette uses the 600–700 shades on white, the dark one the
 * 300–400 shades on slate-950 (tests/e2e/send-composer.test.ts measures them).
 */

interface Palette {
  background: string;
  text: string;
  gutter: string;
  gutterText: string;
  activeLine: string;
  selection: string;
  cursor: string;
  placeholder: string;
  tag: string;
  attribute: string;
  value: string;
  comment: string;
  punctuation: string;
  entity: string;
  keyword: string;
  number: string;
}

const LIGHT: Palette = {
  background: '#ffffff',
  text: '#0f172a', // slate-900
  gutter: '#f8fafc', // slate-50
  gutterText: '#64748b', // slate-500
  activeLine: '#f1f5f980', // slate-100
  selection: '#c7d2fe', // brand-200
  cursor: '#0f172a',
  placeholder: '#64748b', // slate-500: 4.8:1 on white
  tag: '#1d4ed8', // blue-700
  attribute: '#7e22ce', // purple-700
  value: '#047857', // emerald-700
  comment: '#64748b',
  punctuation: '#475569', // slate-600
  entity: '#b45309', // amber-700
  keyword: '#be123c', // rose-700
  number: '#c2410c', // orange-700
};

const DARK: Palette = {
  background: '#020617', // slate-950, the app's dark background
  text: '#e2e8f0', // slate-200
  gutter: '#0f172a', // slate-900
  gutterText: '#94a3b8', // slate-400
  activeLine: '#1e293b80', // slate-800
  selection: '#3730a3', // brand-800
  cursor: '#a5b4fc', // brand-300
  placeholder: '#94a3b8', // slate-400: 7.9:1 on slate-950
  tag: '#93c5fd', // blue-300
  attribute: '#d8b4fe', // purple-300
  value: '#6ee7b7', // emerald-300
  comment: '#94a3b8',
  punctuation: '#94a3b8',
  entity: '#fcd34d', // amber-300
  keyword: '#fda4af', // rose-300
  number: '#fdba74', // orange-300
};

function build(p: Palette, dark: boolean): Extension {
  const view = EditorView.theme(
    {
      '&': { backgroundColor: p.background, color: p.text },
      '.cm-content': { caretColor: p.cursor },
      '.cm-cursor, .cm-dropCursor': { borderLeftColor: p.cursor },
      '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection':
        { backgroundColor: p.selection },
      '.cm-gutters': { backgroundColor: p.gutter, color: p.gutterText, borderRight: 'none' },
      '.cm-activeLine': { backgroundColor: p.activeLine },
      '.cm-activeLineGutter': { backgroundColor: p.activeLine, color: p.text },
      '.cm-placeholder': { color: p.placeholder },
      '.cm-foldPlaceholder': { backgroundColor: 'transparent', border: 'none', color: p.gutterText },
      '.cm-tooltip': { backgroundColor: p.gutter, color: p.text, border: `1px solid ${p.gutterText}40` },
      '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: p.selection, color: p.text },
      '.cm-matchingBracket, &.cm-focused .cm-matchingBracket': {
        backgroundColor: p.selection,
        color: 'inherit',
      },
    },
    { dark },
  );
  const highlight = HighlightStyle.define([
    { tag: [t.tagName, t.typeName], color: p.tag },
    { tag: [t.attributeName, t.propertyName], color: p.attribute },
    { tag: [t.attributeValue, t.string, t.special(t.string)], color: p.value },
    { tag: t.comment, color: p.comment, fontStyle: 'italic' },
    { tag: [t.angleBracket, t.punctuation, t.bracket, t.separator], color: p.punctuation },
    { tag: [t.character, t.escape], color: p.entity },
    { tag: [t.documentMeta, t.processingInstruction, t.keyword, t.modifier], color: p.keyword },
    { tag: [t.number, t.unit, t.color, t.atom, t.bool], color: p.number },
    { tag: [t.className, t.labelName, t.variableName], color: p.tag },
    { tag: t.invalid, color: p.keyword, textDecoration: 'underline wavy' },
  ]);
  return [view, syntaxHighlighting(highlight)];
}

const themes: Record<Theme, Extension> = { light: build(LIGHT, false), dark: build(DARK, true) };

export function editorTheme(theme: Theme): Extension {
  return themes[theme];
}
