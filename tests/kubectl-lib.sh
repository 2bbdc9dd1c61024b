# Sourced by the scripts that drive kubectl: find the kubectl that matches
# the mock's v1.32. /usr/bin/kubectl on Google Cloud SDK machines is a
# dispatcher that asks /version first; calling kubectl.1.32 directly keeps
# the request log free of that extra call. Prints the path, or fails.
find_kubectl() {
	for d in /usr/lib/google-cloud-sdk/bin /usr/share/google-cloud-sdk/bin /opt/google-cloud-sdk/bin \
		"$(dirname "$(command -v gcloud 2>/dev/null || echo /nonexistent/x)")"; do
		[ -x "$d/kubectl.1.32" ] && { echo "$d/kubectl.1.32"; return 0; }
	done
	command -v kubectl.1.32 2>/dev/null && return 0
	command -v kubectl 2>/dev/null && return 0
	return 1
}
