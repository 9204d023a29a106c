import { createRoot } from 'react-dom/client';
import { BuyApp } from '../../../examples/frontend/BuyFlow.js';

/** Mounts the React buy flow into the page; returns how to take it down. */
export function mountBuyFlow(element: HTMLElement, partnersUrl: string, publicApiKey: string) {
  const root = createRoot(element);
  root.render(<BuyApp partnersUrl={partnersUrl} publicApiKey={publicApiKey} />);
  return () => root.unmount();
}
