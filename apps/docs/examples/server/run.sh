# The sandbox runs in another terminal (pnpm start); the secret stays out of shell history.
export EXCHANGE_CONFORMANCE_TOKEN_SECRET=sandbox-demo-secret-not-for-production-use

npx exchange-conformance list
npx exchange-conformance run --exchange-url http://127.0.0.1:4000 --token-id 3141592 --public-api-key pk_sandbox_demo --profile orders --profile loan-book --expected-failures expected-failures.json --report junit=conformance.xml --report html=conformance.html
