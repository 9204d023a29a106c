/**
 * One form for each input the settlement instructions still need (a wallet address, a signed
 * transaction).
 */
import type { SettlementRequirement } from '@exchange-kit/react-hooks';
import { useState } from 'react';

const requirementLabel: Record<SettlementRequirement['type'], (currency: string) => string> = {
  WALLET_ADDRESS: (currency) => `Your ${currency} wallet address`,
  SIGNED_RAW_TRANSACTION: (currency) => `Your signed ${currency} transaction`,
};

/** `disabled` while the flow is working: a second click would send the same value again. */
export function SettlementRequirements({
  requirements,
  disabled,
  onSubmit,
}: {
  requirements: SettlementRequirement[];
  disabled: boolean;
  onSubmit: (requirement: SettlementRequirement, value: string) => void;
}) {
  return requirements.map((requirement) => (
    <RequirementForm
      key={`${requirement.settlementInstructionId}:${requirement.name}`}
      requirement={requirement}
      disabled={disabled}
      onSubmit={(value) => onSubmit(requirement, value)}
    />
  ));
}

function RequirementForm({
  requirement,
  disabled,
  onSubmit,
}: {
  requirement: SettlementRequirement;
  disabled: boolean;
  onSubmit: (value: string) => void;
}) {
  const [value, setValue] = useState('');
  const label = requirementLabel[requirement.type](requirement.currency);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (!disabled) onSubmit(value);
      }}
    >
      <label>
        {label}{' '}
        <input type="text" value={value} onChange={(event) => setValue(event.target.value)} />
      </label>
      <button type="submit" disabled={disabled || value.trim() === ''}>
        Submit
      </button>
    </form>
  );
}
