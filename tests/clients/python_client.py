#!/usr/bin/python3
"""The official Python client (python3-kubernetes) against nodelet-mockapi.

Usage: python_client.py KUBECONFIG

CRUD of a ConfigMap and a Lease, a stale replace that must raise the client's
409 ApiException (reason Conflict), a watch that must see ADDED, MODIFIED
and DELETED in order while this thread writes, patch_namespace, and a Pod
with its defaults, a field selector and an eviction. The server is started by
tests/integration/python_client.sh; this script starts nothing.
"""

import copy
import datetime
import sys
import threading
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

NS = "default"
LEASE_NS = "kube-node-lease"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def expect_status(status, fn, *args, **kwargs):
    """Calls fn and returns the ApiException it must raise with status."""
    try:
        fn(*args, **kwargs)
    except ApiException as e:
        check(e.status == status, "expected %d, got %d: %s" % (status, e.status, e.body))
        return e
    fail("%s did not fail with %d" % (fn.__name__, status))
    return None


def configmap_crud(core):
    name = "py-crud"
    cm = client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name, labels={"suite": "py"}),
                            data={"k": "v1"})
    created = core.create_namespaced_config_map(NS, cm)
    check(created.metadata.resource_version, "create returned no resourceVersion")
    check(created.metadata.uid, "create returned no uid")
    expect_status(409, core.create_namespaced_config_map, NS, cm)

    got = core.read_namespaced_config_map(name, NS)
    check(got.data == {"k": "v1"}, "get returned %r" % got.data)

    listed = core.list_namespaced_config_map(NS, label_selector="suite=py")
    check([i.metadata.name for i in listed.items] == [name], "list by label returned %r" %
          [i.metadata.name for i in listed.items])
    check(listed.metadata.resource_version, "list has no resourceVersion")

    stale = copy.deepcopy(got)
    got.data = {"k": "v2"}
    replaced = core.replace_namespaced_config_map(name, NS, got)
    check(replaced.data == {"k": "v2"}, "replace returned %r" % replaced.data)
    check(replaced.metadata.resource_version != stale.metadata.resource_version,
          "replace did not bump resourceVersion")

    stale.data = {"k": "stale"}
    e = expect_status(409, core.replace_namespaced_config_map, name, NS, stale)
    check(e.reason == "Conflict", "409 reason is %r, want Conflict" % e.reason)
    check("the object has been modified" in e.body, "409 body lacks the conflict message: %s" % e.body)
    check(core.read_namespaced_config_map(name, NS).data == {"k": "v2"},
          "stale replace changed the object")

    status = core.delete_namespaced_config_map(name, NS)
    check(status is not None, "delete returned nothing")
    expect_status(404, core.read_namespaced_config_map, name, NS)
    print("ok: ConfigMap create/get/list/replace/stale replace (409 Conflict)/delete")


def lease_crud(coord):
    name = "py-lease"
    # MicroTime must carry six fraction digits (kube-apiserver parses it with
    # RFC3339Micro); isoformat() drops the fraction when it is zero, which
    # the server rightly refuses with 400, so keep it non-zero.
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=123456)
    lease = client.V1Lease(metadata=client.V1ObjectMeta(name=name),
                           spec=client.V1LeaseSpec(holder_identity="py", lease_duration_seconds=40,
                                                   renew_time=now))
    created = coord.create_namespaced_lease(LEASE_NS, lease)
    check(created.spec.holder_identity == "py", "lease holder %r" % created.spec.holder_identity)

    got = coord.read_namespaced_lease(name, LEASE_NS)
    check(got.spec.lease_duration_seconds == 40, "lease duration %r" % got.spec.lease_duration_seconds)
    check(isinstance(got.spec.renew_time, datetime.datetime), "renewTime did not parse as a datetime")

    names = [i.metadata.name for i in coord.list_namespaced_lease(LEASE_NS).items]
    check(name in names, "lease not listed: %r" % names)

    stale = copy.deepcopy(got)
    got.spec.renew_time = now + datetime.timedelta(seconds=10)
    got.spec.holder_identity = "py2"
    replaced = coord.replace_namespaced_lease(name, LEASE_NS, got)
    check(replaced.spec.holder_identity == "py2", "lease replace returned %r" % replaced.spec.holder_identity)

    stale.spec.holder_identity = "stale"
    e = expect_status(409, coord.replace_namespaced_lease, name, LEASE_NS, stale)
    check(e.reason == "Conflict", "409 reason is %r, want Conflict" % e.reason)

    coord.delete_namespaced_lease(name, LEASE_NS)
    expect_status(404, coord.read_namespaced_lease, name, LEASE_NS)
    print("ok: Lease create/get/list/replace/stale replace (409 Conflict)/delete")


def watch_in_order(core):
    name = "py-watch"
    start_rv = core.list_namespaced_config_map(NS).metadata.resource_version
    events = []
    errors = []
    started = threading.Event()

    def watcher():
        w = watch.Watch()
        try:
            started.set()
            for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=start_rv,
                               field_selector="metadata.name=" + name, timeout_seconds=10):
                events.append((ev["type"], ev["object"].metadata.resource_version,
                               dict(ev["object"].data or {})))
                if ev["type"] == "DELETED":
                    w.stop()
        except Exception as e:  # reported by the main thread
            errors.append(repr(e))

    t = threading.Thread(target=watcher, daemon=True)
    t.start()
    started.wait()
    # Writing right away is safe: the watch resumes from start_rv, so events
    # written before the stream is registered are replayed, not lost.
    core.create_namespaced_config_map(
        NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data={"n": "0"}))
    cm = core.read_namespaced_config_map(name, NS)
    cm.data = {"n": "1"}
    mod = core.replace_namespaced_config_map(name, NS, cm)
    core.delete_namespaced_config_map(name, NS)
    t.join(15)
    check(not t.is_alive(), "watch did not end after DELETED; events so far: %r" % events)
    check(not errors, "watch raised: %s" % errors)
    types = [e[0] for e in events]
    check(types == ["ADDED", "MODIFIED", "DELETED"], "watch events %r, want ADDED, MODIFIED, DELETED" % types)
    check(events[1][2] == {"n": "1"} and events[1][1] == mod.metadata.resource_version,
          "MODIFIED carries %r" % (events[1],))
    rvs = [int(e[1]) for e in events]
    check(rvs == sorted(rvs) and len(set(rvs)) == 3, "resourceVersions not increasing: %r" % rvs)
    print("ok: watch saw ADDED, MODIFIED, DELETED in order")


def namespace_patch(core):
    """patch_namespace (a strategic merge patch), then delete_namespace,
    which leaves the namespace Terminating, and a create in it."""
    name = "py-ns"
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    patched = core.patch_namespace(name, {"metadata": {"labels": {"team": "py"}}})
    check(patched.metadata.labels.get("team") == "py", "patch_namespace labels %r" % patched.metadata.labels)
    check(patched.spec.finalizers == ["kubernetes"], "finalizers %r" % patched.spec.finalizers)
    core.delete_namespace(name)  # typed as V1Status, though the answer is the namespace
    phase = core.read_namespace(name).status.phase
    check(phase == "Terminating", "phase after delete_namespace: %r" % phase)
    e = expect_status(403, core.create_namespaced_config_map, name,
                      client.V1ConfigMap(metadata=client.V1ObjectMeta(name="late")))
    check("because it is being terminated" in e.body, "403 body %s" % e.body)
    print("ok: patch_namespace, delete_namespace Terminating, 403 in it")


def pods(core):
    """A Pod through the client's typed models: create (defaults filled in),
    the field selector kubectl describe node uses, read_namespaced_pod,
    an Eviction (policy/v1) that deletes it, and the 404 after."""
    name = "py-pod"
    pod = client.V1Pod(metadata=client.V1ObjectMeta(name=name),
                       spec=client.V1PodSpec(node_name="py-node",
                                             containers=[client.V1Container(name="c", image="busybox:1.36")]))
    created = core.create_namespaced_pod(NS, pod)
    check(created.status.phase == "Pending", "phase %r" % created.status.phase)
    check(created.spec.restart_policy == "Always", "restartPolicy %r" % created.spec.restart_policy)
    check(created.status.qos_class == "BestEffort", "qosClass %r" % created.status.qos_class)
    keys = sorted(t.key for t in created.spec.tolerations or [])
    check(keys == ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"],
          "DefaultTolerationSeconds tolerations %r" % keys)
    sel = "spec.nodeName=py-node,status.phase!=Succeeded,status.phase!=Failed"
    listed = core.list_pod_for_all_namespaces(field_selector=sel)
    check([p.metadata.name for p in listed.items] == [name], "field selector gave %r" %
          [p.metadata.name for p in listed.items])
    none = core.list_pod_for_all_namespaces(field_selector="spec.nodeName=other")
    check(none.items == [], "spec.nodeName=other matched %r" % [p.metadata.name for p in none.items])
    check(core.read_namespaced_pod(name, NS).spec.containers[0].image == "busybox:1.36", "read_namespaced_pod")
    ev = client.V1Eviction(metadata=client.V1ObjectMeta(name=name, namespace=NS))
    core.create_namespaced_pod_eviction(name, NS, ev)
    # The pod's node does not exist: the stand-in for the kubelet finishes
    # the graceful deletion at its next pass.
    for _ in range(100):
        try:
            core.read_namespaced_pod(name, NS)
        except ApiException as e:
            check(e.status == 404, "read after eviction: %d" % e.status)
            break
        time.sleep(0.1)
    else:
        fail("the evicted pod is still there after 10 s")
    print("ok: pod create with defaults, field selector, eviction")


def main():
    if len(sys.argv) != 2:
        fail("usage: python_client.py KUBECONFIG")
    config.load_kube_config(config_file=sys.argv[1])
    api = client.ApiClient()
    core = client.CoreV1Api(api)
    coord = client.CoordinationV1Api(api)
    t0 = time.monotonic()
    configmap_crud(core)
    lease_crud(coord)
    watch_in_order(core)
    namespace_patch(core)
    pods(core)
    print("PASS: python kubernetes client in %.1fs" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
