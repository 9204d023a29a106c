import type { SettlementRequirement } from '@exchange-kit/react-hooks';
import { useState } from 'react';

const requirementLabel: Record<SettlementRequirement['type'], (currency: string) => string> = {
  WALLET_ADDRESS: (currency) => `Your ${currency} wallet address`,
  SIGNED_RAW_TRANSACTION: (currency) => `Your signed ${currency} transaction`,
};

export function SettlementRequirements({
  requirements,
  onSubmit,
}: {
  requirements: SettlementRequirement[];
  onSubmit: (requirement: SettlementRequirement, value: string) => void;
}) {
  return requirements.map((requirement) => (
    <RequirementForm
      key={`${requirement.settlementInstructionId}:${requirement.name}`}
      requirement={requirement}
      onSubmit={(value) => onSubmit(requirement, value)}
    />
  ));
}

function RequirementForm({
  requirement,
  onSubmit,
}: {
  requirement: SettlementRequirement;
  onSubmit: (value: string) => void;
}) {
  const [value, setValue] = useState('');
  const label = requirementLabel[requirement.type](requirement.currency);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(value);
      }}
    >
      <label>
        {label}{' '}
        <input type="text" value={value} onChange={(event) => setValue(event.target.value)} />
      </label>
      <button type="submit" disabled={value.trim() === ''}>
        Submit
      </button>
    </form>
  );
}
