import type { PartnerHandlerOf } from '../domain/operation.js';
import { visibleTransaction } from './settlement.js';
import { loadTransaction, nextStepMessage } from './transactions.js';

export const getTransactionStatus: PartnerHandlerOf<'getTransactionStatus'> = async ({
  path,
  caller,
  db,
}) => {
  const row = await visibleTransaction(db, caller, path.transaction_id ?? '', 'transaction_id');
  const transaction = await loadTransaction(db, row);
  return {
    status: 200,
    body: { success: true, message: nextStepMessage(transaction), payload: transaction },
  };
};
