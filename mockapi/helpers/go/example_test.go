package mockapi_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	mockapi "nodelet/mockapi/helpers/go"
)

// One server for the whole test, reset before each subtest so that no
// subtest sees another's objects.
func TestConfigMaps(t *testing.T) {
	srv := mockapi.Start(t)
	cms := srv.URL + "/api/v1/namespaces/default/configmaps"

	t.Run("create", func(t *testing.T) {
		srv.Reset(t)
		body := `{"metadata":{"name":"demo"},"data":{"k":"v"}}`
		resp, err := http.Post(cms, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("create: %s", resp.Status)
		}
	})
	t.Run("reset forgot it", func(t *testing.T) {
		srv.Reset(t)
		resp, err := http.Get(cms + "/demo")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("after reset: %s, want 404 Not Found", resp.Status)
		}
	})
	t.Run("kubeconfig", func(t *testing.T) {
		kc, err := os.ReadFile(srv.Kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(kc), "server: "+srv.URL) {
			t.Fatalf("%s does not point at %s:\n%s", srv.Kubeconfig, srv.URL, kc)
		}
	})
}
