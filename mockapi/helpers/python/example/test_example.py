"""The example of docs/testing.md: the official client against
nodelet-mockapi through the nodelet_mockapi pytest plugin."""
from kubernetes import client
from kubernetes.client.rest import ApiException
import pytest


def test_create_configmap(mockapi_core_v1):
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="demo"), data={"k": "v"})
    mockapi_core_v1.create_namespaced_config_map("default", body)
    got = mockapi_core_v1.read_namespaced_config_map("demo", "default")
    assert got.data == {"k": "v"}


def test_each_test_starts_clean(mockapi_core_v1):
    # test_create_configmap's ConfigMap is gone: the fixture reset the server.
    with pytest.raises(ApiException) as e:
        mockapi_core_v1.read_namespaced_config_map("demo", "default")
    assert e.value.status == 404


def test_seeded_namespaces(mockapi_core_v1):
    names = {ns.metadata.name for ns in mockapi_core_v1.list_namespace().items}
    assert {"default", "kube-system", "kube-public", "kube-node-lease"} <= names
