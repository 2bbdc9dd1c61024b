// nodelet-mockapi, the fake kube-apiserver, for Node tests (node --test or
// any runner): startMockapi() runs the real binary on a free port and
// resolves once it prints its ready line; reset() puts the store back to
// its seeded state between tests; stop() ends it. Built-ins only, so it
// works with @kubernetes/client-node or plain fetch.
//
// The binary is $NODELET_MOCKAPI when set, else nodelet-mockapi on PATH.
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';

const READY_PREFIX = 'nodelet-mockapi listening on ';
const START_TIMEOUT_MS = 30000; // the server needs milliseconds

/** The path of nodelet-mockapi; throws an Error saying how to provide it. */
export function mockapiBinary() {
	const env = process.env.NODELET_MOCKAPI;
	if (env) {
		try {
			accessSync(env, constants.X_OK);
		} catch (err) {
			throw new Error(`NODELET_MOCKAPI=${env}: ${err.code}`);
		}
		return env;
	}
	for (const dir of (process.env.PATH ?? '').split(delimiter)) {
		const p = join(dir || '.', 'nodelet-mockapi');
		try {
			accessSync(p, constants.X_OK);
			return p;
		} catch {
			// not in this directory
		}
	}
	throw new Error('nodelet-mockapi not found: put it on PATH or set NODELET_MOCKAPI to the binary');
}

/**
 * Starts nodelet-mockapi with extra flags `args` (e.g. ['--fixtures', 'objects.yaml']).
 * Resolves to { url, kubeconfig, reset(), stop() } once the server is ready;
 * rejects with the server's stderr when it exits first.
 */
export async function startMockapi(args = []) {
	const bin = mockapiBinary();
	const dir = mkdtempSync(join(tmpdir(), 'nodelet-mockapi-'));
	const kubeconfig = join(dir, 'kubeconfig');
	const errPath = join(dir, 'stderr');
	const child = spawn(bin, ['--port', '0', '--kubeconfig-out', kubeconfig, ...args], {
		stdio: ['ignore', 'pipe', openSync(errPath, 'w')],
	});
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
	// The error comes first in stderr; a usage text may follow.
	const stderr = () => readFileSync(errPath, 'utf8').slice(0, 2000).trim();
	const cleanup = () => rmSync(dir, { recursive: true, force: true });

	let timer;
	const url = await new Promise((resolve, reject) => {
		const lines = createInterface({ input: child.stdout });
		lines.on('line', (line) => {
			if (line.startsWith(READY_PREFIX)) resolve(line.slice(READY_PREFIX.length));
		});
		child.once('error', reject);
		exited.then((status) => reject(new Error(`nodelet-mockapi exited before it was ready (${status}): ${stderr()}`)));
		timer = setTimeout(() => reject(new Error(`nodelet-mockapi printed no ready line within ${START_TIMEOUT_MS} ms: ${stderr()}`)), START_TIMEOUT_MS);
	}).catch((err) => {
		child.kill('SIGKILL');
		cleanup();
		throw err;
	}).finally(() => clearTimeout(timer));

	return {
		url,
		kubeconfig,
		/** Back to the seeded state: POST /mockapi/v1/reset (objects, faults, journal). */
		async reset() {
			const resp = await fetch(`${url}/mockapi/v1/reset`, { method: 'POST' });
			if (!resp.ok) throw new Error(`nodelet-mockapi reset: ${resp.status} ${await resp.text()}`);
			await resp.arrayBuffer();
		},
		/** SIGTERM (a clean stop), SIGKILL after 15 s; removes the kubeconfig. */
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGTERM');
				const t = setTimeout(() => child.kill('SIGKILL'), 15000);
				await exited;
				clearTimeout(t);
			}
			cleanup();
		},
	};
}
