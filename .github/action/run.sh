#!/usr/bin/env bash
# The steps of the mcp-conform GitHub Action (action.yml at the repository root).
# Each step is one subcommand, run with the variables GitHub sets:
#
#   run.sh install   go install ./cmd/mcp-conform from the action's checkout
#                    ($GITHUB_ACTION_PATH) into $RUNNER_TEMP, put it on $GITHUB_PATH
#   run.sh run       run mcp-conform with the INPUT_* variables; write the job summary
#                    ($GITHUB_STEP_SUMMARY) and the outputs ($GITHUB_OUTPUT); never fails
#                    on the run's own verdict, so the reports are uploaded first
#   run.sh gate      exit with the run's exit code ($EXIT_CODE)
#
# Inputs (environment): INPUT_TARGET, INPUT_URL, INPUT_REVISIONS, INPUT_BASELINE,
# INPUT_ARGS (extra flags, quoted as in a shell; nothing in them is executed),
# INPUT_REPORT_DIR, INPUT_WORKING_DIRECTORY, INPUT_MERGE (paths whose report.json
# files `mcp-conform merge` combines into one matrix, instead of a run).
set -euo pipefail

die() { echo "::error title=mcp-conform::$*" >&2; exit 2; }

# out NAME VALUE appends one output.
out() { printf '%s=%s\n' "$1" "$2" >>"${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"; }

install() {
	: "${GITHUB_ACTION_PATH:?GITHUB_ACTION_PATH is not set}"
	command -v go >/dev/null || die "no Go toolchain on the runner: add actions/setup-go before this action"
	local bindir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-conform-bin"
	mkdir -p "$bindir"
	(cd "$GITHUB_ACTION_PATH" && GOBIN="$bindir" go install ./cmd/mcp-conform)
	echo "$bindir" >>"${GITHUB_PATH:?GITHUB_PATH is not set}"
	"$bindir/mcp-conform" --version
}

# split_words prints its argument's shell words, one a line, without running anything
# (xargs splits like a shell: quotes, backslashes); it fails on an unmatched quote.
split_words() {
	printf '%s' "$1" | xargs -r printf '%s\n'
}

# summary_counts prints "key=value" for every field of report.json's top-level
# summary object (WriteJSON indents by two spaces, one field a line).
summary_counts() {
	awk '
		/^  "summary": \{/ { inside = 1; next }
		inside && /^  \}/ { exit }
		inside {
			line = $0
			gsub(/[",[:space:]]/, "", line)
			split(line, kv, ":")
			if (kv[1] != "" && kv[2] ~ /^[0-9]+$/) print kv[1] "=" kv[2]
		}' "$1"
}

run() {
	local dir="${INPUT_REPORT_DIR:-mcp-conform-report}"
	if [[ -n "${INPUT_WORKING_DIRECTORY:-}" ]]; then
		cd "$INPUT_WORKING_DIRECTORY"
	fi
	local -a args=(--report-dir "$dir" --no-color)
	local mode=run
	if [[ -n "${INPUT_MERGE:-}" ]]; then
		mode=merge
		local split
		split="$(split_words "$INPUT_MERGE")" ||
			die "the merge input does not split like shell words (an unmatched quote?): $INPUT_MERGE"
		local -a paths=()
		mapfile -t paths <<<"$split"
		args=(merge --report-dir "$dir" "${paths[@]}")
	fi
	[[ "$mode" == run && -n "${INPUT_TARGET:-}" ]] && args+=(--target "$INPUT_TARGET")
	[[ "$mode" == run && -n "${INPUT_URL:-}" ]] && args+=(--url "$INPUT_URL")
	if [[ "$mode" == run && -n "${INPUT_REVISIONS:-}" && "${INPUT_REVISIONS}" != "all" ]]; then
		args+=(--revision "$INPUT_REVISIONS")
	fi
	if [[ "$mode" == run && -n "${INPUT_BASELINE:-}" ]]; then
		# The help text is read whole first: under pipefail, grep -q leaving at its
		# first match could SIGPIPE mcp-conform and fail the pipeline on a binary
		# that has the flag.
		help=$(mcp-conform --help 2>&1 || true)
		grep -q -- '-baseline' <<<"$help" ||
			die "this mcp-conform has no --baseline flag; update the action's version or drop the baseline input"
		args+=(--baseline "$INPUT_BASELINE")
	fi
	if [[ "$mode" == run && -n "${INPUT_ARGS:-}" ]]; then
		local split
		split="$(split_words "$INPUT_ARGS")" ||
			die "the args input does not split like shell words (an unmatched quote?): $INPUT_ARGS"
		local -a extra=()
		mapfile -t extra <<<"$split"
		args+=("${extra[@]}")
	fi

	echo "mcp-conform ${args[*]}"
	local code=0 log
	log="$(mktemp)"
	mcp-conform "${args[@]}" 2>"$log" || code=$?
	cat "$log" >&2

	out exit-code "$code"
	out report-dir "$dir"
	if [[ -d "$dir" ]]; then
		out report-path "$(cd "$dir" && pwd)" # absolute, for the upload
	fi
	local verdict
	case "$mode:$code" in
	merge:0) verdict="ecosystem matrix" ;;
	*:0) verdict="✅ PASS" ;;
	*:1) verdict="❌ FAIL" ;;
	*:2) verdict="⚠️ usage or configuration error" ;;
	*:3) verdict="⏭️ INCOMPLETE" ;;
	*:4) verdict="💥 target unreachable" ;;
	*) verdict="💥 exit $code" ;;
	esac
	{
		echo "## mcp-conform: $verdict (exit code $code)"
		echo
		if [[ -f "$dir/report.json" ]]; then
			local counts
			counts="$(summary_counts "$dir/report.json")"
			while IFS='=' read -r k v; do
				[[ -n "$k" ]] && out "$k" "$v"
			done <<<"$counts"
			echo "Verdicts: $(echo "$counts" | paste -sd ' ' | sed 's/=/: /g; s/ \([a-zA-Z]\)/ · \1/g')"
			echo
			echo "Reports: the \`${INPUT_ARTIFACT_NAME:-mcp-conform-report}\` artifact of this run (report.html, report.json, junit.xml, matrix.md, transcripts); every failure carries the command that reproduces it."
			echo
		fi
		if [[ ! -f "$dir/report.json" && -f "$dir/matrix.json" ]]; then
			echo "Reports: the \`${INPUT_ARTIFACT_NAME:-mcp-conform-report}\` artifact of this run: matrix.html (sort and filter by revision or check), matrix.md, matrix.json and each run's report directory."
			echo
		fi
		if [[ -f "$dir/report.json" ]] && command -v jq >/dev/null; then
			# The first failures' repro commands (jq is on GitHub's hosted runners; without
			# it the commands are still in report.json and report.html).
			local repro
			repro="$(jq -r '[.revisions[] | .revision as $r | .checks[] | select(.repro != null and .repro != "")
				| "# \(.id) @ \($r): \(.status)\n\(.repro)"] | .[:20] | join("\n")' "$dir/report.json" 2>/dev/null || true)"
			if [[ -n "$repro" ]]; then
				echo "### Reproduce"
				echo
				echo '```sh'
				echo "$repro"
				echo '```'
				echo
			fi
		fi
		if [[ -f "$dir/matrix.md" ]]; then
			# The matrix's own title is the summary's heading already (the ecosystem
			# matrix of --targets or merge too: its matrix.md is the same file name).
			sed '1{/^# /{N;d;};}' "$dir/matrix.md"
		else
			echo '```'
			tail -n 20 "$log"
			echo '```'
		fi
	} >>"${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}"
	rm -f "$log"
}

gate() {
	local code="${EXIT_CODE:-}"
	[[ "$code" =~ ^[0-9]+$ ]] || die "no exit code from the run step"
	if [[ "$code" != 0 ]]; then
		echo "::error title=mcp-conform::mcp-conform exited $code (see the job summary and the report artifact)"
	fi
	exit "$code"
}

case "${1:-}" in
install | run | gate) "$1" ;;
*) die "usage: run.sh install|run|gate" ;;
esac
