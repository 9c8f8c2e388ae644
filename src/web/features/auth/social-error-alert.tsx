import { useSearchParams } from 'react-router';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { socialErrorMessage } from './messages.ts';

/**
 * The `error` a social sign-in left on /signin or /signup (docs/spec.md §4): its text, and the code
 * itself when it is one we do not know.
 */
export function SocialErrorAlert() {
  const [params] = useSearchParams();
  const code = params.get('error');
  if (!code) return null;
  const social = socialErrorMessage(code);
  return (
    <FormAlert>
      {social.message}
      {social.code ? <span className="mt-1 block text-xs opacity-80">Error code: {social.code}</span> : null}
    </FormAlert>
  );
}
