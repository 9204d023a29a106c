import type { PartnerHandlerOf } from '../handling/operation.js';
import { visibleTransaction } from './settlement.js';
import { nextStepMessage, transactionView } from './transactions.js';

export const getTransactionStatus: PartnerHandlerOf<'getTransactionStatus'> = ({
  path,
  caller,
  journal,
}) => {
  const row = visibleTransaction(
    journal.partner,
    caller,
    path.transaction_id ?? '',
    'transaction_id',
  );
  const transaction = transactionView(journal.partner, row);
  return {
    status: 200,
    body: { success: true, message: nextStepMessage(transaction), payload: transaction },
  };
};
