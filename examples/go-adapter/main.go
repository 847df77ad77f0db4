// A pi-conformance adapter in Go, standard library only: the worked example of
// docs/adapters.md.
//
// It is a small, independent reimplementation of two things Pi does with a session file,
// written from Pi's documented behaviour, not from its code:
//
//   - branch: the leaf (the last entry in file order) and the active path, root first;
//   - stats:  token and cost totals and message counts over every entry of the file.
//
// It speaks protocol v1 over stdin and stdout, one JSON object per line: "hello" is answered
// with what it claims, "run" with one result per stage asked for, "bye" ends it. Build it
// with `go build` and score it with `pi-conformance run --impl process:./pi-go-adapter`.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Entry is one parsed line of a session file, kept as generic JSON.
type Entry = map[string]any

// Session is what the adapter needs from a file: the header and the entries in file order.
type Session struct {
	Header  Entry
	Entries []any // every non-null JSON value after the header; Pi keeps non-objects too
}

// readSession parses a session file the way Pi does (docs: "Reading a session file"):
// lines cut on \n, blank and unparsable lines ignored, JSON null ignored, the first parsed
// value must be a header with type "session" and a string id, later headers are skipped.
func readSession(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	session := &Session{}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var value any
		if json.Unmarshal(line, &value) != nil || value == nil {
			continue
		}
		object, isObject := value.(map[string]any)
		if session.Header == nil {
			if !isObject || object["type"] != "session" {
				return nil, fmt.Errorf("Session file is not a valid pi session: %s", path)
			}
			if _, ok := object["id"].(string); !ok {
				return nil, fmt.Errorf("Session file is not a valid pi session: %s", path)
			}
			session.Header = object
			continue
		}
		if isObject && object["type"] == "session" {
			continue
		}
		session.Entries = append(session.Entries, value)
	}
	if session.Header == nil {
		return nil, fmt.Errorf("Session file is not a valid pi session: %s", path)
	}
	return session, nil
}

func idOf(value any) (string, bool) {
	object, ok := value.(map[string]any)
	if !ok {
		return "", false
	}
	id, ok := object["id"].(string)
	return id, ok
}

// branch answers the "branch" stage: the leaf is the last entry in file order, the path
// follows parentId through an index where later duplicates win, and ends at a missing parent.
func branch(session *Session) (any, error) {
	index := map[string]int{}
	for i, entry := range session.Entries {
		if id, ok := idOf(entry); ok {
			index[id] = i
		}
	}
	type step struct {
		Index int `json:"index"`
		ID    any `json:"id"`
		Type  any `json:"type"`
	}
	result := map[string]any{"leafId": nil, "path": []step{}}
	if len(session.Entries) == 0 {
		return result, nil
	}
	leaf := session.Entries[len(session.Entries)-1]
	leafID, hasID := idOf(leaf)
	if hasID {
		result["leafId"] = leafID
	}
	var path []step
	position := len(session.Entries) - 1
	if hasID {
		position = index[leafID]
	}
	for steps := 0; ; steps++ {
		if steps > len(session.Entries) {
			return nil, fmt.Errorf("the parentId chain from %v has a cycle", leafID)
		}
		entry := session.Entries[position]
		object, _ := entry.(map[string]any)
		id, _ := idOf(entry)
		var kind any
		if object != nil {
			kind = object["type"]
		}
		path = append(path, step{Index: position, ID: nullable(id), Type: kind})
		parent, ok := object["parentId"].(string)
		if !ok {
			break
		}
		next, found := index[parent]
		if !found {
			break
		}
		position = next
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	result["path"] = path
	return result, nil
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// totals adds up usage objects. Missing numbers count as zero: a simplification (Pi's
// JavaScript would produce NaN, written as null), which the corpus's trap cases expose.
type totals struct {
	input, output, cacheRead, cacheWrite, cost float64
}

func number(object map[string]any, key string) float64 {
	value, _ := object[key].(float64)
	return value
}

func (t *totals) add(usage any) {
	u, ok := usage.(map[string]any)
	if !ok {
		return
	}
	t.input += number(u, "input")
	t.output += number(u, "output")
	t.cacheRead += number(u, "cacheRead")
	t.cacheWrite += number(u, "cacheWrite")
	if cost, ok := u["cost"].(map[string]any); ok {
		t.cost += number(cost, "total")
	}
}

// stats answers the "stats" stage (Pi's getSessionStats): every entry of the file counts,
// on every branch: usage entries, compaction and branch summary usage, and message usage.
func stats(session *Session) (any, error) {
	var sum totals
	var user, assistant, toolCalls, toolResults, messages int
	for _, value := range session.Entries {
		entry, ok := value.(map[string]any)
		if !ok {
			continue
		}
		switch entry["type"] {
		case "usage":
			sum.add(entry["usage"])
		case "compaction", "branch_summary":
			sum.add(entry["usage"])
		case "message":
			message, _ := entry["message"].(map[string]any)
			messages++
			switch message["role"] {
			case "user":
				user++
			case "toolResult":
				toolResults++
				sum.add(message["usage"])
			case "assistant":
				assistant++
				if content, ok := message["content"].([]any); ok {
					for _, block := range content {
						if b, ok := block.(map[string]any); ok && b["type"] == "toolCall" {
							toolCalls++
						}
					}
				}
				sum.add(message["usage"])
			}
		}
	}
	return map[string]any{
		"sessionId":         session.Header["id"],
		"userMessages":      user,
		"assistantMessages": assistant,
		"toolCalls":         toolCalls,
		"toolResults":       toolResults,
		"totalMessages":     messages,
		"tokens": map[string]any{
			"input":      sum.input,
			"output":     sum.output,
			"cacheRead":  sum.cacheRead,
			"cacheWrite": sum.cacheWrite,
			"total":      sum.input + sum.output + sum.cacheRead + sum.cacheWrite,
		},
		"cost": sum.cost,
	}, nil
}

var stages = map[string]func(*Session) (any, error){"branch": branch, "stats": stats}

type request struct {
	Cmd     string `json:"cmd"`
	Seq     *int   `json:"seq"`
	Session struct {
		Path string `json:"path"`
	} `json:"session"`
	Stages []string `json:"stages"`
}

func run(req request) map[string]any {
	results := map[string]any{}
	session, err := readSession(req.Session.Path)
	for _, stage := range req.Stages {
		answer, known := stages[stage]
		switch {
		case !known:
			results[stage] = map[string]any{"skipped": "not implemented by the Go example"}
		case err != nil:
			results[stage] = map[string]any{"rejected": map[string]any{"message": err.Error()}}
		case versionOf(session) < 3:
			// Older files are migrated by Pi (new ids, rewritten file); not implemented here.
			results[stage] = map[string]any{"skipped": "session versions 1 and 2 are not migrated by the Go example"}
		default:
			output, failure := answer(session)
			if failure != nil {
				results[stage] = map[string]any{"rejected": map[string]any{"message": failure.Error()}}
			} else {
				results[stage] = map[string]any{"output": output}
			}
		}
	}
	return map[string]any{"seq": req.Seq, "results": results}
}

func versionOf(session *Session) float64 {
	if version, ok := session.Header["version"].(float64); ok {
		return version
	}
	return 1
}

func hello() map[string]any {
	return map[string]any{
		"protocol": 1,
		"implementation": map[string]any{
			"name":     "pi-go-adapter",
			"version":  "0.1.0",
			"language": "go",
			"homepage": "https://example.invalid/pi-go-adapter",
		},
		"capabilities": map[string]any{"stages": []string{"branch", "stats"}},
	}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout) // Encode writes one line per value
	for {
		line, err := in.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var req request
			if json.Unmarshal(line, &req) != nil {
				out.Encode(map[string]any{"error": map[string]any{"message": "not JSON"}})
			} else if req.Cmd == "hello" {
				out.Encode(hello())
			} else if req.Cmd == "run" {
				out.Encode(run(req))
			} else if req.Cmd == "bye" {
				return
			} else {
				out.Encode(map[string]any{"seq": req.Seq, "error": map[string]any{"message": "unknown command " + req.Cmd}})
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
