import { describe, expect, it } from 'vitest';
import { AUTH_MESSAGES } from './contract/auth.ts';
import { isPasswordRuleMessage, passwordRuleProblem } from './password-rules.ts';

describe('passwordRuleProblem (the forms and the server)', () => {
  it('refuses fewer than 8 characters and passwords made only of whitespace', () => {
    expect(passwordRuleProblem('seven77')).toBe(AUTH_MESSAGES.passwordTooShort);
    expect(passwordRuleProblem(' '.repeat(8))).toBe(AUTH_MESSAGES.passwordOnlySpaces);
    expect(passwordRuleProblem('\t \n \u00a0  \u2003 ')).toBe(AUTH_MESSAGES.passwordOnlySpaces);
  });

  it('counts characters as typed: never trims, counts an emoji as one character, asks for no composition', () => {
    expect(passwordRuleProblem('       a')).toBeUndefined();
    expect(passwordRuleProblem('correct horse')).toBeUndefined();
    expect(passwordRuleProblem('🐴🐴🐴🐴🐴🐴🐴')).toBe(AUTH_MESSAGES.passwordTooShort); // 7 characters, 14 UTF-16 units
    expect(passwordRuleProblem('🐴🐴🐴🐴🐴🐴🐴🐴')).toBeUndefined();
  });

  it('tells the forms which messages belong to the password field', () => {
    expect(isPasswordRuleMessage(AUTH_MESSAGES.passwordTooCommon)).toBe(true);
    expect(isPasswordRuleMessage(AUTH_MESSAGES.fillAllFields)).toBe(false);
  });
});
