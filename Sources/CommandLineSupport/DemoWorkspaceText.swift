// The demo workspace's text and its upload files, built into the program. A test keeps them the
// same as `workspaces/demo.json` and `workspaces/data/` (after editing those, put the new text
// between the quotes below).

extension BuiltInDemo {
  /// `workspaces/demo.json`, byte for byte.
  package static let workspaceText = #"""
{
  "version": 1,
  "name": "demo",
  "baseURL": "{{host}}",
  "agent": {
    "maxConcurrent": 8,
    "maxPerHost": 6
  },
  "variables": {
    "host": "http://127.0.0.1:8080",
    "id": "1",
    "token": "paste-a-token"
  },
  "environments": {
    "ada": {
      "id": "1"
    },
    "grace": {
      "id": "3"
    }
  },
  "requests": [
    {
      "name": "users/list",
      "method": "GET",
      "url": "/users",
      "headers": {
        "Accept": "application/json",
        "X-Debug": {"value": "1", "enabled": false}
      }
    },
    {
      "name": "users/list-cached",
      "method": "GET",
      "url": "/users",
      "headers": {
        "Accept": "application/json"
      },
      "cache": {
        "seconds": 60,
        "mode": "cacheThenNetwork"
      }
    },
    {
      "name": "users/get",
      "method": "GET",
      "url": "/users/{{id}}",
      "headers": {
        "Accept": "application/json"
      },
      "validate": {
        "status": [200, 299],
        "json": {
          "id": "number",
          "name": "string"
        }
      }
    },
    {
      "name": "users/create",
      "method": "POST",
      "url": "/users",
      "body": {
        "json": {
          "name": "Grace Hopper"
        }
      },
      "validate": {
        "status": [200, 299],
        "json": {
          "id": "number",
          "name": "string"
        }
      }
    },
    {
      "name": "users/delete",
      "method": "DELETE",
      "url": "/users/2"
    },
    {
      "name": "users/missing",
      "method": "GET",
      "url": "/users/99",
      "comment": "there is no user 99: this one fails with 404 on purpose"
    },
    {
      "name": "auth/login",
      "method": "POST",
      "url": "/auth/login",
      "body": {
        "json": {
          "user": "ada",
          "password": "lovelace"
        }
      }
    },
    {
      "name": "auth/me",
      "method": "GET",
      "url": "/me",
      "auth": {
        "bearer": "{{token}}"
      },
      "comment": "send auth/login, then set token with --var token=… or in \"variables\""
    },
    {
      "name": "slow",
      "method": "GET",
      "url": "/slow"
    },
    {
      "name": "trickle",
      "method": "GET",
      "url": "/trickle",
      "timeout": 5
    },
    {
      "name": "flaky",
      "method": "GET",
      "url": "/flaky-demo",
      "retry": {
        "max": 2
      }
    },
    {
      "name": "files/small-json",
      "method": "GET",
      "url": "/files/small.json"
    },
    {
      "name": "files/big-head",
      "method": "HEAD",
      "url": "/files/big.bin"
    },
    {
      "name": "files/big",
      "method": "GET",
      "url": "/bytes/52428800?seed=demo&rate=8000000",
      "download": {
        "to": "downloads/big.bin"
      },
      "retry": {
        "max": 5
      },
      "comment": "50 MB at 8 MB/s: c cancels, r resumes from the bytes on disk"
    },
    {
      "name": "files/upload",
      "method": "POST",
      "url": "/upload",
      "body": {
        "multipart": [
          {
            "name": "note",
            "value": "hello from reqbench"
          },
          {
            "name": "photo",
            "file": "data/photo.png",
            "type": "image/png"
          }
        ]
      }
    },
    {
      "name": "files/put",
      "method": "PUT",
      "url": "/upload",
      "body": {
        "file": "data/blob.bin"
      }
    },
    {
      "name": "streams/ticker",
      "method": "GET",
      "url": "/sse/ticker?interval=0.5",
      "reconnect": true,
      "timeout": 0,
      "comment": "server-sent events, a tick every half second until c ends it; reconnects with Last-Event-ID"
    },
    {
      "name": "streams/chat",
      "method": "POST",
      "url": "/sse/chat",
      "body": {
        "json": {
          "prompt": "hello"
        }
      },
      "comment": "a chat-like completion streamed token by token, as LLM APIs do: | .choices[0].delta.content"
    },
    {
      "name": "streams/feed",
      "method": "GET",
      "url": "/ndjson?count=20&interval=0.5",
      "comment": "an NDJSON feed: one JSON object a line"
    },
    {
      "name": "oauth2-report",
      "method": "GET",
      "url": "/oauth/report",
      "auth": {
        "oauth2": {
          "grant": "clientCredentials",
          "tokenURL": "/oauth/token",
          "clientId": "demo",
          "clientSecret": "{{secret.demo-client}}",
          "scope": "read"
        }
      },
      "comment": "the token is fetched first (oauth2 › oauth2-report in the queue); reqbench --demo gives the secret demo-client, else: reqbench secrets set workspaces/demo.json demo-client (demo-secret)"
    }
  ],
  "chains": [
    {
      "name": "login-flow",
      "steps": [
        {
          "request": "auth/login",
          "capture": {
            "token": ".token",
            "uid": ".user.id",
            "etag": "header:ETag",
            "code": "status"
          }
        },
        {
          "request": "auth/me"
        },
        {
          "request": "users/get",
          "vars": {
            "id": "{{uid}}"
          }
        }
      ]
    }
  ],
  "batches": [
    {
      "name": "smoke",
      "members": ["users/list", "users/get", "login-flow", "files/small-json"],
      "policy": "allSettled",
      "concurrency": 4
    }
  ]
}

"""#

  /// `workspaces/data/photo.png`, base64.
  static let photoBase64 = [
    "iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAGy0lEQVR4nBXVkb/GIBTG8ReHYTgMw+EwHIbDMBwOh8Pwh+Fw",
    "OAyHYRiG4d3tD+jb53TOc36/H8MP8UP+GH+oH/rH9GP+YX4sP+yP9Yf74X9sP/Yfx4/zR/jBj/jj+nH/eH6kH++P/KP8qD/a",
    "j/7j9xsYBsSAHBgH1IAemAbmATOwDNiBdcAN+IFtYB84Bs6BMMBAHLgG7oFnIA28A3mgDNSBNtCHDxAMAiGQglGgBFowCWaB",
    "ESwCK1gFTuAFm2AXHIJTEAQIouAS3IJHkASvIAuKoAqaoIsPkAwSIZGSUaIkWjJJZomRLBIrWSVO4iWbZJccklMSJEii5JLc",
    "kkeSJK8kS4qkSpqkyw8YGUbEiBwZR9SIHplG5hEzsozYkXXEjfiRbWQfOUbOkTDCSBy5Ru6RZySNvCN5pIzUkTbSxw9QDAqh",
    "kIpRoRRaMSlmhVEsCqtYFU7hFZtiVxyKUxEUKKLiUtyKR5EUryIriqIqmqKrD9AMGqGRmlGjNFozaWaN0Swaq1k1TuM1m2bX",
    "HJpTEzRooubS3JpHkzSvJmuKpmqapusPmBgmxIScGCfUhJ6YJuYJM7FM2Il1wk34iW1inzgmzokwwUScuCbuiWciTbwTeaJM",
    "1Ik20acPmBlmxIycGWfUjJ6ZZuYZM7PM2Jl1xs34mW1mnzlmzpkww0ycuWbumWcmzbwzeabM1Jk20+cPMAwGYZCG0aAM2jAZ",
    "ZoMxLAZrWA3O4A2bYTcchtMQDBii4TLchseQDK8hG4qhGpqhmw9YGBbEglwYF9SCXpgW5gWzsCzYhXXBLfiFbWFfOBbOhbDA",
    "Qly4Fu6FZyEtvAt5oSzUhbbQlw+wDBZhkZbRoizaMllmi7EsFmtZLc7iLZtltxyW0xIsWKLlstyWx5IsryVbiqVamqXbD1gZ",
    "VsSKXBlX1IpemVbmFbOyrNiVdcWt+JVtZV85Vs6VsMJKXLlW7pVnJa28K3mlrNSVttLXD3AMDuGQjtGhHNoxOWaHcSwO61gd",
    "zuEdm2N3HI7TERw4ouNy3I7HkRyvIzuKozqao7sP8Awe4ZGe0aM82jN5Zo/xLB7rWT3O4z2bZ/ccntMTPHii5/LcnseTPK8n",
    "e4qnepqn+w/YGDbEhtwYN9SG3pg25g2zsWzYjXXDbfiNbWPfODbOjbDBRty4Nu6NZyNtvBt5o2zUjbbRtw/YGXbEjtwZd9SO",
    "3pl25h2zs+zYnXXH7fidbWffOXbOnbDDTty5du6dZyftvDt5p+zUnbbT9w84GA7EgTwYD9SBPpgO5gNzsBzYg/XAHfiD7WA/",
    "OA7Og3DAQTy4Du6D5yAdvAf5oBzUg3bQjw84GU7EiTwZT9SJPplO5hNzspzYk/XEnfiT7WQ/OU7Ok3DCSTy5Tu6T5ySdvCf5",
    "pJzUk3bSzw8IDAERkIExoAI6MAXmgAksARtYAy7gA1tgDxyBMxACBGLgCtyBJ5ACbyAHSqAGWqCHD/hffN9q+pbHF+9fAH8R",
    "+YXYFzNfEHyj+g3T1+5fQ34t833qV/avMN/Tv8v/T4QLbnggwQsZClRo0L+1/YsMERGRkTGiIjoyReaIiSwRG1kjLuIjW2SP",
    "HJEzEuL/9TFyRe7IE0mRN5IjJVIjLdLjB1wMF+JCXowX6kJfTBfzhblYLuzFeuEu/MV2sV8cF+dFuP4fHy+ui/viuUgX70W+",
    "KBf1ol306wNuhhtxI2/GG3Wjb6ab+cbcLDf2Zr1xN/5mu9lvjpvzJtz/pYk3181989ykm/cm35SbetNu+v0BD8ODeJAP44N6",
    "0A/Tw/xgHpYH+7A+uAf/sD3sD8fD+RCe/8LHh+vhfnge0sP7kB/KQ31oD/35gMSQEAmZGBMqoRNTYk6YxJKwiTXhEj6xJfbE",
    "kTgTIf1/a0xciTvxJFLiTeRESdRES/T0AS/Di3iRL+OLetEv08v8Yl6WF/uyvrgX/7K97C/Hy/kS3v+miS/Xy/3yvKSX9yW/",
    "lJf60l76+wGZISMyMjNmVEZnpsycMZklYzNrxmV8ZsvsmSNzZkL+b8mYuTJ35smkzJvJmZKpmZbp+QMKQ0EUZGEsqIIuTIW5",
    "YApLwRbWgiv4wlbYC0fhLITy3/CxcBXuwlNIhbeQC6VQC63QywdUhoqoyMpYURVdmSpzxVSWiq2sFVfxla2yV47KWQn1f5xi",
    "5arclaeSKm8lV0qlVlql1w9oDA3RkI2xoRq6MTXmhmksDdtYG67hG1tjbxyNsxHa/7DGxtW4G08jNd5GbpRGbbRGbx/QGTqi",
    "IztjR3V0Z+rMHdNZOrazdlzHd7bO3jk6Zyf0/yiInatzd55O6ryd3Cmd2mmd3vkD4XNgW5DmDQMAAAAASUVORK5CYII=",
  ].joined()
}
