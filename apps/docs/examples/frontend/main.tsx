import { createRoot } from 'react-dom/client';
import { BuyApp } from './BuyFlow.js';

// The page holds the partners URL and the public API key, never a secret: here the sandbox's
// (open the page with ?sandbox=http://127.0.0.1:4001 when it listens elsewhere).
const partnersUrl = new URLSearchParams(location.search).get('sandbox') ?? 'http://127.0.0.1:4000';
const publicApiKey = 'pk_sandbox_demo';

const root = document.getElementById('root');
if (root) createRoot(root).render(<BuyApp partnersUrl={partnersUrl} publicApiKey={publicApiKey} />);
