import { Switch } from '../../components/ui/switch.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';
import { useUpdateLoginAlerts } from './api.ts';
import { Section } from './section.tsx';

/** Login alerts (docs/spec.md §4): the switch moves at once and moves back if saving fails. */
export function LoginAlertsCard({ enabled }: { enabled: boolean }) {
  const update = useUpdateLoginAlerts();
  const onChange = (next: boolean) =>
    update.mutate(next, {
      onSuccess: (res) =>
        toast.success(
          'Settings Updated',
          res.prefs.loginAlerts ? 'Login alerts enabled' : 'Login alerts disabled',
        ),
      onError: (err) => toast.error('Failed to update settings', errorMessage(err)),
    });
  return (
    <Section id="login-alerts" title="Security">
      <div className="flex items-start justify-between gap-4">
        <div className="space-y-1">
          <label htmlFor="login-alerts-switch" className="text-sm font-medium text-slate-900 dark:text-white">
            Login alerts
          </label>
          <p id="login-alerts-hint" className="text-sm text-slate-600 dark:text-slate-400">
            Get an email with the time, IP address and browser whenever someone signs in to your account.
          </p>
        </div>
        <Switch
          id="login-alerts-switch"
          checked={enabled}
          aria-describedby="login-alerts-hint"
          busy={update.isPending}
          onCheckedChange={onChange}
        />
      </div>
    </Section>
  );
}
