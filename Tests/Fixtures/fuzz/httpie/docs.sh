http POST :3000/users?page=2 name=ada age:=36 admin:=true tags[]=a tags[]=b 'address[city]=London' X-Trace:abc per==10 'X-Empty;'
$ https --form PUT api.test/login user=ada 'note=a b' cv@files/cv.pdf
http -a ada:secret -v --pretty=all --timeout 2.5 --verify=no --follow :3000/me
xh -A bearer -a tok-1 DELETE localhost:8080/users/1 \
  Accept:application/json
http --raw '{"a": [1, 2]}' POST :3000/x
