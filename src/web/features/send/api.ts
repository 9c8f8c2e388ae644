import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SendEmailRequest } from '../../../shared/contract/email.ts';
import { api } from '../../lib/api.ts';
import { emailKeys, USAGE_KEY } from '../../lib/query-keys.ts';

export function useSendEmail() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SendEmailRequest) => api<{ id: string }>('/api/email/send', { method: 'POST', body }),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: USAGE_KEY });
      void queryClient.invalidateQueries({ queryKey: emailKeys.all });
    },
  });
}
