curl 'http://127.0.0.1:9/api/users?page=2&q=a%20b' \
  -H 'accept: application/json' \
  -H 'authorization: Bearer abc' \
  -H 'content-type: application/json' \
  --data-raw '{"name":"Ada","tags":["a","b"],"n":1.5}' \
  --compressed
curl -X PUT -u user:pass --json '{"a":1}' -k --max-time 5 -L --max-redirs 3 http://127.0.0.1:9/x
curl -F 'a=1' -F 'f=@data/x.bin;type=image/png' -A agent -e http://ref/ -b 'c=1' http://127.0.0.1:9/upload
curl -G -d q=1 --data-urlencode 'b=x y' -I "http://127.0.0.1:9/search" -H "X-Id: $ID"
