// @kubernetes/client-node 1.x against nodelet-mockapi.
//
// Usage: node test.mjs KUBECONFIG
//
// CRUD of a ConfigMap and a Lease, a stale replace that must reject with the
// client's ApiException code 409 (reason Conflict), and a watch that must see
// ADDED, MODIFIED and DELETED in order while this script writes. The server
// is started by tests/integration/node_client.sh; this script starts nothing.
import * as k8s from '@kubernetes/client-node';

const NS = 'default';
const LEASE_NS = 'kube-node-lease';

function fail(msg) {
	console.error(`FAIL: ${msg}`);
	process.exit(1);
}

function check(cond, msg) {
	if (!cond) fail(msg);
}

// The 1.x generated code hands error bodies over as strings for codes it has
// no model for, and parsed objects for the ones it has.
function statusOf(err) {
	if (typeof err.body !== 'string') return err.body ?? {};
	try {
		return JSON.parse(err.body);
	} catch {
		return {};
	}
}

async function expectCode(code, promise, what) {
	try {
		await promise;
	} catch (err) {
		check(err instanceof k8s.ApiException, `${what}: rejected with ${err}, not an ApiException`);
		check(err.code === code, `${what}: code ${err.code}, want ${code}: ${err.body}`);
		return statusOf(err);
	}
	fail(`${what} did not fail with ${code}`);
}

async function configMapCrud(core) {
	const name = 'node-crud';
	const body = { metadata: { name, labels: { suite: 'node' } }, data: { k: 'v1' } };
	const created = await core.createNamespacedConfigMap({ namespace: NS, body });
	check(created.metadata.resourceVersion, 'create returned no resourceVersion');
	check(created.metadata.uid, 'create returned no uid');
	const dup = await expectCode(409, core.createNamespacedConfigMap({ namespace: NS, body }), 'duplicate create');
	check(dup.reason === 'AlreadyExists', `duplicate create reason ${dup.reason}`);

	const got = await core.readNamespacedConfigMap({ name, namespace: NS });
	check(got.data.k === 'v1', `get returned ${JSON.stringify(got.data)}`);

	const listed = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'suite=node' });
	const names = listed.items.map((i) => i.metadata.name);
	check(names.length === 1 && names[0] === name, `list by label returned ${names}`);
	check(listed.metadata.resourceVersion, 'list has no resourceVersion');

	const stale = structuredClone(got);
	got.data = { k: 'v2' };
	const replaced = await core.replaceNamespacedConfigMap({ name, namespace: NS, body: got });
	check(replaced.data.k === 'v2', `replace returned ${JSON.stringify(replaced.data)}`);
	check(replaced.metadata.resourceVersion !== stale.metadata.resourceVersion, 'replace did not bump resourceVersion');

	stale.data = { k: 'stale' };
	const st = await expectCode(409, core.replaceNamespacedConfigMap({ name, namespace: NS, body: stale }), 'stale replace');
	check(st.reason === 'Conflict', `409 reason ${st.reason}, want Conflict`);
	check(/the object has been modified/.test(st.message), `409 message: ${st.message}`);
	const after = await core.readNamespacedConfigMap({ name, namespace: NS });
	check(after.data.k === 'v2', 'stale replace changed the object');

	await core.deleteNamespacedConfigMap({ name, namespace: NS });
	await expectCode(404, core.readNamespacedConfigMap({ name, namespace: NS }), 'get after delete');
	console.log('ok: ConfigMap create/get/list/replace/stale replace (409 Conflict)/delete');
}

async function leaseCrud(coord) {
	const name = 'node-lease';
	// MicroTime fields need six fraction digits (kube-apiserver parses them
	// with RFC3339Micro); a plain Date serializes three and is refused, so
	// client-node provides V1MicroTime for them.
	const renew = new k8s.V1MicroTime();
	const body = { metadata: { name }, spec: { holderIdentity: 'node', leaseDurationSeconds: 40, renewTime: renew } };
	const created = await coord.createNamespacedLease({ namespace: LEASE_NS, body });
	check(created.spec.holderIdentity === 'node', `lease holder ${created.spec.holderIdentity}`);

	const got = await coord.readNamespacedLease({ name, namespace: LEASE_NS });
	check(got.spec.leaseDurationSeconds === 40, `lease duration ${got.spec.leaseDurationSeconds}`);
	// 1.x has no deserializer for V1MicroTime and hands the string over.
	const renewed = new Date(got.spec.renewTime);
	check(renewed.getTime() === renew.getTime(), `renewTime ${got.spec.renewTime} != ${renew.toISOString()}`);

	const listed = await coord.listNamespacedLease({ namespace: LEASE_NS });
	check(listed.items.some((i) => i.metadata.name === name), 'lease not listed');

	const stale = structuredClone(got);
	got.spec.holderIdentity = 'node2';
	got.spec.renewTime = new k8s.V1MicroTime(renew.getTime() + 10000);
	const replaced = await coord.replaceNamespacedLease({ name, namespace: LEASE_NS, body: got });
	check(replaced.spec.holderIdentity === 'node2', `lease replace returned ${replaced.spec.holderIdentity}`);

	stale.spec.holderIdentity = 'stale';
	stale.spec.renewTime = new k8s.V1MicroTime(stale.spec.renewTime);
	const st = await expectCode(409, coord.replaceNamespacedLease({ name, namespace: LEASE_NS, body: stale }), 'stale lease replace');
	check(st.reason === 'Conflict', `409 reason ${st.reason}, want Conflict`);

	await coord.deleteNamespacedLease({ name, namespace: LEASE_NS });
	await expectCode(404, coord.readNamespacedLease({ name, namespace: LEASE_NS }), 'lease get after delete');
	console.log('ok: Lease create/get/list/replace/stale replace (409 Conflict)/delete');
}

async function watchInOrder(kc, core) {
	const name = 'node-watch';
	const startRv = (await core.listNamespacedConfigMap({ namespace: NS })).metadata.resourceVersion;
	const events = [];
	let controller;
	const ended = new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`watch did not end; events so far ${JSON.stringify(events)}`)), 15000);
		new k8s.Watch(kc)
			.watch(
				`/api/v1/namespaces/${NS}/configmaps`,
				{ resourceVersion: startRv, fieldSelector: `metadata.name=${name}`, timeoutSeconds: 10 },
				(type, obj) => {
					events.push({ type, rv: obj.metadata.resourceVersion, data: obj.data });
					if (type === 'DELETED') controller?.abort();
				},
				(err) => {
					clearTimeout(timer);
					// Our own abort after DELETED surfaces as an AbortError.
					if (err && err.name !== 'AbortError') reject(err);
					else resolve();
				},
			)
			.then((c) => {
				controller = c;
			}, reject);
	});
	// Writing right away is safe: the watch resumes from startRv, so events
	// written before the stream is registered are replayed, not lost.
	await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name }, data: { n: '0' } } });
	const cm = await core.readNamespacedConfigMap({ name, namespace: NS });
	cm.data = { n: '1' };
	const mod = await core.replaceNamespacedConfigMap({ name, namespace: NS, body: cm });
	await core.deleteNamespacedConfigMap({ name, namespace: NS });
	await ended.catch((err) => fail(`watch: ${err}`));

	const types = events.map((e) => e.type);
	check(JSON.stringify(types) === '["ADDED","MODIFIED","DELETED"]', `watch events ${types}, want ADDED,MODIFIED,DELETED`);
	check(events[1].data.n === '1' && events[1].rv === mod.metadata.resourceVersion, `MODIFIED carries ${JSON.stringify(events[1])}`);
	const rvs = events.map((e) => Number(e.rv));
	check(rvs[0] < rvs[1] && rvs[1] < rvs[2], `resourceVersions not increasing: ${rvs}`);
	console.log('ok: watch saw ADDED, MODIFIED, DELETED in order');
}

// A Pod as client-node types it: created with upstream's defaults, found
// by kubectl describe node's field selector, evicted (policy/v1), gone.
async function pods(core) {
	const name = 'node-pod';
	const body = { metadata: { name }, spec: { nodeName: 'node-node', containers: [{ name: 'c', image: 'busybox:1.36' }] } };
	const created = await core.createNamespacedPod({ namespace: NS, body });
	check(created.status.phase === 'Pending', `phase ${created.status.phase}`);
	check(created.spec.restartPolicy === 'Always', `restartPolicy ${created.spec.restartPolicy}`);
	const keys = (created.spec.tolerations ?? []).map((t) => t.key).sort();
	check(JSON.stringify(keys) === '["node.kubernetes.io/not-ready","node.kubernetes.io/unreachable"]', `tolerations ${keys}`);
	const fieldSelector = 'spec.nodeName=node-node,status.phase!=Succeeded,status.phase!=Failed';
	const listed = await core.listPodForAllNamespaces({ fieldSelector });
	check(listed.items.map((p) => p.metadata.name).join() === name, `field selector gave ${listed.items.map((p) => p.metadata.name)}`);
	await core.createNamespacedPodEviction({ name, namespace: NS, body: { metadata: { name, namespace: NS } } });
	for (let i = 0; i < 100; i++) {
		try {
			await core.readNamespacedPod({ name, namespace: NS });
		} catch (err) {
			check(err.code === 404, `read after eviction: ${err.code}: ${err.body}`);
			console.log('ok: pod create with defaults, field selector, eviction');
			return;
		}
		await new Promise((r) => setTimeout(r, 100));
	}
	fail('the evicted pod is still there after 10 s');
}

async function main() {
	if (process.argv.length !== 3) fail('usage: node test.mjs KUBECONFIG');
	const kc = new k8s.KubeConfig();
	kc.loadFromFile(process.argv[2]);
	const core = kc.makeApiClient(k8s.CoreV1Api);
	const coord = kc.makeApiClient(k8s.CoordinationV1Api);
	const t0 = Date.now();
	await configMapCrud(core);
	await leaseCrud(coord);
	await watchInOrder(kc, core);
	await pods(core);
	console.log(`PASS: @kubernetes/client-node in ${((Date.now() - t0) / 1000).toFixed(1)}s`);
}

main().catch((err) => fail(err?.stack ?? String(err)));
