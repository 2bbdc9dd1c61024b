// The helper's own tests, built-ins only (fetch): node --test mockapi/helpers/node/mockapi.test.mjs
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mockapiBinary, startMockapi } from './mockapi.mjs';

let mock;
before(async () => {
	mock = await startMockapi();
});
beforeEach(() => mock.reset());
after(() => mock.stop());

const cms = () => `${mock.url}/api/v1/namespaces/default/configmaps`;

test('a ConfigMap is created', async () => {
	const resp = await fetch(cms(), {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ metadata: { name: 'demo' }, data: { k: 'v' } }),
	});
	assert.equal(resp.status, 201);
});

test('reset forgot it', async () => {
	const resp = await fetch(`${cms()}/demo`);
	assert.equal(resp.status, 404);
});

test('the kubeconfig points at the server', () => {
	assert.match(readFileSync(mock.kubeconfig, 'utf8'), new RegExp(`server: ${mock.url}`));
});

test('a missing binary says how to provide it', () => {
	const saved = { ...process.env };
	try {
		process.env.NODELET_MOCKAPI = '/nonexistent/nodelet-mockapi';
		assert.throws(mockapiBinary, /NODELET_MOCKAPI=\/nonexistent/);
		delete process.env.NODELET_MOCKAPI;
		process.env.PATH = '/nonexistent';
		assert.throws(mockapiBinary, /put it on PATH or set NODELET_MOCKAPI/);
	} finally {
		process.env = saved;
	}
});

test('a server that refuses to start rejects with its message', async () => {
	await assert.rejects(startMockapi(['--no-such-flag']), /exited before it was ready.*no-such-flag/s);
});
