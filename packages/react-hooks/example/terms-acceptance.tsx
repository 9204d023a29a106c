/** The terms of service checkbox a transaction needs ticked. */
export function TermsAcceptance({
  accepted,
  onChange,
  termsHref,
}: {
  accepted: boolean;
  onChange: (accepted: boolean) => void;
  termsHref: string;
}) {
  return (
    <label>
      <input
        type="checkbox"
        checked={accepted}
        onChange={(event) => onChange(event.target.checked)}
      />{' '}
      I accept the <a href={termsHref}>terms of service</a>
    </label>
  );
}
