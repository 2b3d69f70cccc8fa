package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"time"
)

// Sign returns the Standard Webhooks signature header value for a message:
// "v1,<base64 HMAC-SHA256>" over "<id>.<unix seconds>.<body>" under each
// key, space-separated (several keys while a secret is being rotated).
func Sign(keys [][]byte, id string, ts time.Time, body []byte) string {
	prefix := id + "." + strconv.FormatInt(ts.Unix(), 10) + "."
	var out []byte
	for i, k := range keys {
		if i > 0 {
			out = append(out, ' ')
		}
		m := hmac.New(sha256.New, k)
		m.Write([]byte(prefix))
		m.Write(body)
		out = append(out, "v1,"...)
		out = base64.StdEncoding.AppendEncode(out, m.Sum(nil))
	}
	return string(out)
}
