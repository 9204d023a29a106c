# The sandbox runs in another terminal. The secret goes through a variable, out of shell
# history; the sandbox's own variables, when you set them, are used here too.
export EXCHANGE_CONFORMANCE_TOKEN_SECRET="${SANDBOX_TOKEN_SECRET:-sandbox-demo-secret-not-for-production-use}"

npx exchange-conformance list
npx exchange-conformance run --exchange-url "${SANDBOX_URL:-http://127.0.0.1:4000}" --token-id "${SANDBOX_TOKEN_ID:-3141592}" --public-api-key "${SANDBOX_PUBLIC_API_KEY:-pk_sandbox_demo}" --profile orders --profile loan-book --expected-failures expected-failures.json --report junit=conformance.xml --report html=conformance.html
