import { FileCode2, LayoutTemplate } from 'lucide-react';
import { Fragment } from 'react';
import {
  DropdownMenu,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
} from '../../components/ui/dropdown-menu.tsx';
import { fieldClasses } from '../../components/ui/input.tsx';
import { SegmentedControl } from '../../components/ui/segmented-control.tsx';
import type { SourceFormat, TemplateSyntax } from '../../../shared/contract/email.ts';
import {
  STARTER_TEMPLATES,
  type StarterTemplate,
} from '../../../shared/starter-templates/starter-templates.ts';

/** The merge-tag syntax of the composer: none, or one the server fills with the sample data. */
export type MergeSyntax = 'none' | TemplateSyntax;

const SYNTAX_OPTIONS: { value: MergeSyntax; label: string }[] = [
  { value: 'none', label: 'None' },
  { value: 'handlebars', label: 'Handlebars {{name}}' },
  { value: 'liquid', label: 'Liquid {{ name }}' },
  { value: 'mailchimp', label: 'Mailchimp *|NAME|*' },
];

export interface SourceOptionsProps {
  format: SourceFormat;
  onFormatChange: (format: SourceFormat) => void;
  syntax: MergeSyntax;
  onSyntaxChange: (syntax: MergeSyntax) => void;
  onStartFrom: (template: StarterTemplate) => void;
}

/** What the source is written in (HTML or MJML), its merge tags, and the starter templates. */
export function SourceOptions({
  format,
  onFormatChange,
  syntax,
  onSyntaxChange,
  onStartFrom,
}: SourceOptionsProps) {
  return (
    <div className="flex flex-wrap items-end gap-x-4 gap-y-3" data-testid="source-options">
      <div className="space-y-1.5">
        <p id="source-format-label" className="text-sm font-medium text-slate-800 dark:text-slate-200">
          Source format
        </p>
        <SegmentedControl
          label="Source format"
          value={format}
          onChange={onFormatChange}
          options={[
            { value: 'html', label: 'HTML' },
            { value: 'mjml', label: 'MJML' },
          ]}
        />
      </div>
      <div className="space-y-1.5">
        <label
          htmlFor="merge-syntax"
          className="block text-sm font-medium text-slate-800 dark:text-slate-200"
        >
          Merge tags
        </label>
        <select
          id="merge-syntax"
          value={syntax}
          onChange={(e) => onSyntaxChange(e.target.value as MergeSyntax)}
          className={`${fieldClasses} h-8 w-auto pr-8`}
        >
          {SYNTAX_OPTIONS.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      <DropdownMenu
        align="start"
        triggerVariant="outline"
        triggerSize="sm"
        trigger={
          <>
            <LayoutTemplate aria-hidden="true" />
            Start from Template
          </>
        }
      >
        {(['html', 'mjml'] as const).map((group, i) => (
          <Fragment key={group}>
            {i > 0 ? <DropdownMenuSeparator /> : null}
            <DropdownMenuLabel>{group === 'html' ? 'HTML' : 'MJML'}</DropdownMenuLabel>
            {STARTER_TEMPLATES.filter((t) => t.format === group).map((t) => (
              <DropdownMenuItem
                key={t.id}
                icon={<FileCode2 />}
                onSelect={() => onStartFrom(t)}
                className="whitespace-nowrap"
              >
                {t.name} ({group === 'html' ? 'HTML' : 'MJML'})
              </DropdownMenuItem>
            ))}
          </Fragment>
        ))}
      </DropdownMenu>
    </div>
  );
}
