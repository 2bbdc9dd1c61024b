// The example of docs/testing.md: @kubernetes/client-node against
// nodelet-mockapi, one server for the file, reset before each test.
import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import * as k8s from '@kubernetes/client-node';
import { startMockapi } from '../mockapi.mjs';

let mock, core;
before(async () => {
	mock = await startMockapi();
	const kc = new k8s.KubeConfig();
	kc.loadFromFile(mock.kubeconfig);
	core = kc.makeApiClient(k8s.CoreV1Api);
});
beforeEach(() => mock.reset());
after(() => mock.stop());

test('create and read a ConfigMap', async () => {
	const body = { metadata: { name: 'demo' }, data: { k: 'v' } };
	await core.createNamespacedConfigMap({ namespace: 'default', body });
	const got = await core.readNamespacedConfigMap({ name: 'demo', namespace: 'default' });
	assert.deepEqual(got.data, { k: 'v' });
});

test('each test starts clean', async () => {
	await assert.rejects(core.readNamespacedConfigMap({ name: 'demo', namespace: 'default' }),
		(err) => err instanceof k8s.ApiException && err.code === 404);
});
