package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

const opsKey = "ops-key-0123456789abcdef"

func TestAdminAPIListsShowsAndReplaysDeliveriesAndAuditsEachCall(t *testing.T) {
	t.Parallel()
	var healthy atomic.Bool
	rc := newReceiver(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if !healthy.Load() {
			w.WriteHeader(http.StatusBadGateway)
		}
	})
	path := deliveryConfig(t, webhookDest(rc.srv.URL, "        retry: {attempts: 1}\n"), "")
	text := strings.Replace(readFile(t, path), "clients:", fmt.Sprintf("admins:\n  - id: ops\n    apiKeys: [{key: %s}]\nclients:", opsKey), 1)
	path = writeConfig(t, t.TempDir(), text)
	s := startServerAt(t, path)
	completeForm(t, s, s.token("acme", acmeKey, "storage"), "acme-main", "a@example.com")
	waitForDelivery(t, path, "failed")

	r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"ops","password":"`+opsKey+`"}`)
	if r.status != 200 {
		t.Fatalf("admin authenticate: %d %s", r.status, r.raw)
	}
	admin := map[string]string{"Authorization": "Bearer " + r.body["token"].(string), "Content-Type": "application/json"}
	if r := s.do("POST", "/admin/authenticate", jsonHeader, `{"username":"acme","password":"`+acmeKey+`"}`); r.status != 401 {
		t.Fatalf("a client key is not an admin key: %d", r.status)
	}
	clientTok := map[string]string{"Authorization": "Bearer " + s.token("acme", acmeKey, "storage")}
	if r := s.do("GET", "/admin/deliveries", clientTok, ""); r.status != 401 || r.body["message"] != "Invalid token" {
		t.Fatalf("a client token on the admin API: %d %s", r.status, r.raw)
	}
	if r := s.save(strings.TrimPrefix(admin["Authorization"], "Bearer "), "non-sensitive", `{}`); r.status != 401 {
		t.Fatalf("an admin token on the storage API: %d", r.status)
	}

	r = s.do("GET", "/admin/deliveries?status=failed", admin, "")
	list, _ := r.body["deliveries"].([]any)
	if r.status != 200 || len(list) != 1 || list[0].(map[string]any)["lastError"] != "http_5xx" {
		t.Fatalf("list: %d %s", r.status, r.raw)
	}
	if _, ok := list[0].(map[string]any)["nextAt"]; ok {
		t.Fatalf("a failed delivery shows a next attempt: %s", r.raw)
	}
	r = s.do("GET", "/admin/deliveries/1", admin, "")
	if attempts, _ := r.body["attempts"].([]any); r.status != 200 || len(attempts) != 1 || attempts[0].(map[string]any)["statusCode"] != 502.0 {
		t.Fatalf("show: %d %s", r.status, r.raw)
	}
	if r := s.do("GET", "/admin/deliveries/999", admin, ""); r.status != 404 {
		t.Fatalf("unknown delivery: %d", r.status)
	}
	healthy.Store(true)
	if r := s.do("POST", "/admin/deliveries/1/replay", admin, ""); r.status != 200 || r.body["replayed"] != 1.0 {
		t.Fatalf("replay: %d %s", r.status, r.raw)
	}
	waitForDelivery(t, path, "delivered")
	if r := s.do("POST", "/admin/replays", admin, `{"since":"24h"}`); r.status != 200 || r.body["replayed"] != 0.0 {
		t.Fatalf("replay --failed: %d %s", r.status, r.raw)
	}
	r = s.do("GET", "/admin/audit", admin, "")
	entries, _ := r.body["entries"].([]any)
	var actions []string
	for _, e := range entries {
		m := e.(map[string]any)
		if m["actor"] != "admin:ops" && !strings.HasPrefix(m["actor"].(string), "cli:") {
			t.Errorf("actor %v", m["actor"])
		}
		actions = append(actions, m["action"].(string))
	}
	got := strings.Join(actions, " ")
	for _, want := range []string{"audit.read", "deliveries.replay_failed", "deliveries.replay", "deliveries.show", "deliveries.list"} {
		if !strings.Contains(got, want) {
			t.Errorf("audit log lacks %s: %s", want, got)
		}
	}
	if out := cli(t, "audit", "--config", path); !strings.Contains(out, "admin:ops") || !strings.Contains(out, "deliveries.show") {
		t.Fatalf("pads audit:\n%s", out)
	}
}
