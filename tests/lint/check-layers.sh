#!/bin/sh
# The layering check of `make lint` (docs/decisions/0024-layers.md).
#
# Usage: check-layers.sh SRCDIR OBJECT...
#
# From the objects' symbols (nm) it finds which source file calls into which
# (an undefined symbol of one object defined by another), and from the
# sources' #include lines which header each file reads. Then:
#  1. a file may call into or include only its own folder and the folders
#     tests/lint/layers.txt lets its folder use (transitively);
#  2. no two files call into each other, directly or round a longer cycle,
#     unless every file of the cycle includes one shared *_internal.h (one
#     module split over several files);
#  3. a *_internal.h is included only by files of its own folder;
#  4. a header belongs to the folder whose fragment lists it (a public
#     header in client/include/nodelet/ to the folder that installs it,
#     mockapi/mockapi.h to mockapi/server), else to the folder holding it.
# Prints each violation and exits 1 when there is any.
set -u
src=${1:?usage: check-layers.sh SRCDIR OBJECT...}
shift
rules=$src/tests/lint/layers.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Object → source file (relative to SRCDIR). Automake names an object of a
# target with its own flags "<dir>/<target>-<name>.o".
: >"$tmp/objects"
for o in "$@"; do
	d=$(dirname "$o")
	b=$(basename "$o" .o)
	s=$d/$b.c
	[ -f "$src/$s" ] || s=$d/${b#*-}.c
	[ -f "$src/$s" ] || { echo "check-layers: no source for $o" >&2; exit 2; }
	printf '%s %s\n' "$o" "$s" >>"$tmp/objects"
done

# Symbols: "D <sym> <source>" for definitions, "U <sym> <source>" for uses.
while read -r o s; do
	nm -g "$o" | awk -v s="$s" '
		NF == 2 && $1 == "U" { print "U", $2, s }
		NF == 3 && $2 ~ /^[TDBRCSG]$/ { print "D", $3, s }'
done <"$tmp/objects" >"$tmp/syms"

# Calls: "<from> <to> <symbol>", one line per file pair (the first symbol).
awk 'FNR == NR { if ($1 == "D") def[$2] = $3; next }
     $1 == "U" && ($2 in def) && def[$2] != $3 {
	k = $3 " " def[$2]
	if (!(k in seen)) { seen[k] = 1; print $3, def[$2], $2 }
     }' "$tmp/syms" "$tmp/syms" >"$tmp/calls"

# Includes: "<from> <header> <as written>", for every source of the folders.
# A header is the folder's whose fragment lists it.
(cd "$src" && for f in $(awk '!/^#/ && NF { print $1 }' "$rules"); do
	ls "$f"/*.am 2>/dev/null
done) | sort -u | while read -r am; do
	grep -o '[A-Za-z_0-9/.-]*\.h' "$src/$am" | sed "s|^|$(dirname "$am") |"
done >"$tmp/public"
(cd "$src" && for f in $(awk '!/^#/ && NF { print $1 }' "$rules"); do
	ls "$f"/*.c "$f"/*.h 2>/dev/null
done) | sort -u >"$tmp/sources"
while read -r f; do
	d=$(dirname "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*\([<"][^>"]*[>"]\).*/\1/p' "$src/$f" |
		while read -r inc; do
			name=$(printf '%s' "$inc" | tr -d '<>"')
			case $inc in
			\<nodelet/*) h=client/include/$name ;;
			\<*) continue ;;
			*)
				if [ -f "$src/$d/$name" ]; then
					h=$(cd "$src/$d" && cd "$(dirname "$name")" && pwd)/$(basename "$name")
					h=${h#"$(cd "$src" && pwd)/"}
				elif [ -f "$src/mockapi/$name" ]; then
					h=mockapi/$name
				elif [ -f "$src/client/$name" ]; then
					h=client/$name
				elif [ -f "$src/$name" ]; then
					h=$name
				else
					continue # config.h and other generated headers
				fi
				;;
			esac
			printf '%s %s %s\n' "$f" "$h" "$inc"
		done
done <"$tmp/sources" >"$tmp/includes"

awk -v rules="$rules" -v public="$tmp/public" -v calls="$tmp/calls" \
	-v includes="$tmp/includes" '
function folder(f,   best, d) {
	best = ""
	for (d in rank)
		if (index(f, d "/") == 1 && length(d) > length(best))
			best = d
	return best
}
function owner(h,   d) {
	if (h in pub) return pub[h]
	return folder(h)
}
# may[a, b]: folder a may use folder b (the closure of the rules).
function close_rules(   changed, a, b, c) {
	do {
		changed = 0
		for (a in rank) for (b in rank)
			if ((a, b) in may) for (c in rank)
				if ((b, c) in may && !((a, c) in may)) { may[a, c] = 1; changed = 1 }
	} while (changed)
}
BEGIN {
	while ((getline line < rules) > 0) {
		if (line ~ /^#/ || line !~ /[^ \t]/) continue
		n = split(line, w, /[ \t]+/)
		rank[w[1]] = ++nr
		may[w[1], w[1]] = 1
		for (i = 2; i <= n; i++) if (w[i] != "") may[w[1], w[i]] = 1
	}
	close_rules()
	while ((getline line < public) > 0) { split(line, w, " "); pub[w[2]] = w[1] }
	bad = 0
	while ((getline line < calls) > 0) {
		split(line, w, " ")
		a = folder(w[1]); b = folder(w[2])
		if (a == "" || b == "") continue
		if (!((a, b) in may)) {
			printf "layers: %s calls %s (%s): %s may not use %s\n", w[1], w[2], w[3], a, b
			bad = 1
		}
		edge[w[1], w[2]] = 1; succ[w[1]] = succ[w[1]] " " w[2]; node[w[1]]; node[w[2]]
	}
	while ((getline line < includes) > 0) {
		split(line, w, " ")
		a = folder(w[1]); b = owner(w[2])
		if (a == "" || b == "" || (a, b) in may) continue
		printf "layers: %s includes %s: %s may not use %s\n", w[1], w[3], a, b
		bad = 1
	}
	close(includes)
	while ((getline line < includes) > 0) {
		split(line, w, " ")
		if (w[2] !~ /_internal\.h$/) continue
		inc_internal[w[1]] = inc_internal[w[1]] " " w[2]
		a = folder(w[1]); b = folder(w[2])
		if (a != "" && b != "" && a != b) {
			printf "layers: %s includes %s: an _internal.h is for the files of its own folder (%s)\n", w[1], w[3], b
			bad = 1
		}
	}
	# Reachability from every file (breadth first), then cycles: files that
	# reach each other.
	for (s in node) {
		delete seen; qh = 1; qt = 0
		q[++qt] = s
		while (qh <= qt) {
			x = q[qh++]; m = split(succ[x], nx, " ")
			for (i = 1; i <= m; i++)
				if (!(nx[i] in seen)) { seen[nx[i]] = 1; q[++qt] = nx[i] }
		}
		for (t in seen) reach[s, t] = 1
	}
	for (s in node) {
		if (s in done || !((s, s) in reach)) continue
		members = s; n = 1; done[s] = 1
		for (t in node)
			if (t != s && (s, t) in reach && (t, s) in reach) { members = members " " t; n++; done[t] = 1 }
		# Allowed when all members include one common _internal.h.
		split(members, mm, " ")
		m = split(inc_internal[mm[1]], cand, " ")
		ok = 0
		for (i = 1; i <= m && !ok; i++) {
			all = 1
			for (j = 2; j <= n; j++)
				if (index(inc_internal[mm[j]] " ", " " cand[i] " ") == 0) all = 0
			ok = all
		}
		if (!ok) {
			printf "layers: a cycle of calls between %s\n", members
			bad = 1
		}
	}
	exit bad
}'
