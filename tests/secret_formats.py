"""The ordinary secret formats of issue 28, rebuilt from its description: where people really
put credentials (multi-line YAML, TOML and XML values, a k8s name/value pair, continued lines,
connection strings, command lines, token prefixes, calls in code, prose) and what users type
into a question.

    FILES:     (path in a planted repository, file text, planted values)
    QUESTIONS: (question, planted values)
    PROVIDER:  a provider's 401 body that echoes the API key it was sent

Every planted value is unique, so finding it anywhere (a prompt, an index part, a run-log row,
an export, printed output) means it leaked. A value split over lines is planted as its pieces,
each of which must be masked. Values read like passwords people choose (words, digits,
hyphens), not like random tokens, unless the format itself is a token.
"""

from __future__ import annotations

from typing import NamedTuple


class Planted(NamedTuple):
    path: str
    text: str
    values: tuple[str, ...]


def _f(path: str, text: str, *values: str) -> Planted:
    return Planted(path, text, values)


HEX32 = "7d3f9a1c5e8b2046f1a9c3e7d5b80214"
HEX64 = "c4e1a97f3b2d8065e9f1a3c7b5d20846f8e6a4c2b0d9e7f5a3c1b9d7e5f3a1c8"

FILES: list[Planted] = [
    # YAML: block scalars, flow mappings, anchors, values on the next line
    _f("conf/yaml_literal.yaml", "db:\n  password: |\n    Wq8-lantern-Quartz\n  pool: 5\n",
       "Wq8-lantern-Quartz"),
    _f("conf/yaml_folded.yaml", "app:\n  secret_key: >-\n    fold9-meadow-Tiger\n  debug: false\n",
       "fold9-meadow-Tiger"),
    _f("conf/yaml_flow.yaml", "db: {user: app, password: flowmap-Otter-73, port: 5432}\n",
       "flowmap-Otter-73"),
    _f("conf/yaml_anchor.yaml", "defaults: &creds\n  password: &pw anchor-Heron-55\n"
       "prod:\n  <<: *creds\n  password: *pw\n", "anchor-Heron-55"),
    _f("conf/yaml_next_line.yaml", "service:\n  api_token:\n    nextline7Kestrel22\n",
       "nextline7Kestrel22"),
    _f("conf/yaml_next_quoted.yaml", 'oauth:\n  client_secret:\n    "quotedNext-Walrus-81"\n',
       "quotedNext-Walrus-81"),
    _f("deploy/k8s_pair.yaml", "containers:\n  - name: api\n    env:\n"
       "      - name: DB_PASSWORD\n        value: k8sPair-Falcon-19\n", "k8sPair-Falcon-19"),
    _f("deploy/k8s_pair_quoted.yaml", "env:\n- name: API_KEY\n  value: \"k8sQuoted-Lynx-44\"\n"
       "- name: LOG_LEVEL\n  value: info\n", "k8sQuoted-Lynx-44"),
    _f("deploy/k8s_pair_reversed.yaml", "env:\n  - value: k8sRev-Marmot-66\n"
       "    name: SMTP_PASSWORD\n", "k8sRev-Marmot-66"),
    _f("deploy/k8s_secret.yaml", "kind: Secret\nstringData:\n  password: |-\n"
       "    stringdata-Moose-62\n", "stringdata-Moose-62"),
    _f("deploy/compose.yaml", "services:\n  db:\n    environment:\n"
       "      MYSQL_ROOT_PASSWORD: compose-Bison-28\n", "compose-Bison-28"),
    _f(".github/workflows/release.yml", "steps:\n  - uses: docker/login-action@v3\n    with:\n"
       "      username: bot\n      password: ghact-Puffin-37\n", "ghact-Puffin-37"),
    _f("ansible/group_vars/all.yml", "ansible_become_pass: ansible-Marten-90\n",
       "ansible-Marten-90"),
    _f("conf/yaml_block_token.yaml", "auth_token: |\n  blockTok3n-Vulture-8842\n",
       "blockTok3n-Vulture-8842"),
    _f("conf/yaml_list.yaml", "passwords:\n  - listPw-Avocet-11\n  - listPw-Bittern-22\n",
       "listPw-Avocet-11", "listPw-Bittern-22"),
    # TOML
    _f("conf/toml_multi.toml", '[db]\npassword = """\ntomlMulti-Gecko-31\n"""\n',
       "tomlMulti-Gecko-31"),
    _f("conf/toml_literal.toml", "[app]\nsecret = '''\ntomlLit-Ibis-47\n'''\n",
       "tomlLit-Ibis-47"),
    _f("conf/toml_inline.toml", 'db = { user = "app", password = "inlineTbl-Newt-58" }\n',
       "inlineTbl-Newt-58"),
    _f("conf/toml_array.toml", 'api_keys = [\n  "tomlArr9Quail64xZ",\n  "tomlArr2Robin71yW",\n]\n',
       "tomlArr9Quail64xZ", "tomlArr2Robin71yW"),
    # .properties
    _f("conf/cont.properties", "db.user=app\ndb.password=propsContA7x\\\n    Raven72Qz\n",
       "propsContA7x", "Raven72Qz"),
    _f("conf/colon.properties", "mail.smtp.password: propsColon-Jaguar-11\n",
       "propsColon-Jaguar-11"),
    _f("conf/spaced.properties", "ldap.bind.credentials = propsSpace-Koala-26\n",
       "propsSpace-Koala-26"),
    # connection strings
    _f("conf/jdbc_oracle.properties", "url=jdbc:oracle:thin:scott/jdbcTiger-Oryx-39"
       "@db.internal:1521:ORCL\n", "jdbcTiger-Oryx-39"),
    _f("conf/jdbc_query.properties", "url=jdbc:mysql://db:3306/app?user=app&password="
       "jdbcQuery-Panda-48\n", "jdbcQuery-Panda-48"),
    _f("conf/jdbc_semi.properties", "url=jdbc:sqlserver://db:1433;databaseName=app;user=sa;"
       "password=jdbcSemi-Lemur-53;\n", "jdbcSemi-Lemur-53"),
    _f("conf/ado.config", "Server=db;Database=app;User Id=sa;Password=adoConn-Tapir-67;\n",
       "adoConn-Tapir-67"),
    _f("conf/mongo.env.txt", "MONGO_URL=mongodb+srv://app:mongoUri-Dingo-71@cluster0.example.net"
       "/app\n", "mongoUri-Dingo-71"),
    _f("conf/redis_url.txt", "cache: redis://:redisUri-Bulbul-31@cache:6379/0\n",
       "redisUri-Bulbul-31"),
    _f("src/dsn.go", 'package db\n\nvar dsn = "root:goDsn-Avocet-29@tcp(db:3306)/app"\n',
       "goDsn-Avocet-29"),
    # Dockerfile
    _f("Dockerfile", "FROM python:3.12\nENV DB_PASSWORD dockerEnv-Civet-82\n"
       "ENV API_KEY=dockerEq-Coyote-93 OTHER=1\nARG NPM_TOKEN=dockerArg-Ferret-14\n",
       "dockerEnv-Civet-82", "dockerEq-Coyote-93", "dockerArg-Ferret-14"),
    _f("docker/netrc.Dockerfile", 'RUN echo "machine git.example.com login ci password '
       'dockerRun-Hyena-25" > /root/.netrc\n', "dockerRun-Hyena-25"),
    # Terraform
    _f("infra/variables.tf", 'variable "db_password" {\n  default = "tfDefault-Impala-36"\n}\n',
       "tfDefault-Impala-36"),
    _f("infra/token.tf", 'variable "api_token" {\n  type      = string\n'
       '  default   = "tfTyped-Jackal-47"\n  sensitive = true\n}\n', "tfTyped-Jackal-47"),
    _f("infra/main.tf", 'resource "aws_db_instance" "db" {\n  username = "admin"\n'
       '  password = "tfRes-Kudu-58"\n}\n', "tfRes-Kudu-58"),
    _f("infra/locals.tf", 'locals {\n  admin_password = "tfvars-Llama-69"\n}\n',
       "tfvars-Llama-69"),
    # JSON and XML
    _f("conf/json_next.json", '{\n  "password":\n    "jsonNext-Mink-71"\n}\n',
       "jsonNext-Mink-71"),
    _f("conf/json_pair.json", '[{"name": "DB_PASSWORD", "value": "jsonPair-Narwhal-82"}]\n',
       "jsonPair-Narwhal-82"),
    _f("conf/json_pair_lines.json", '{\n  "name": "SMTP_PASSWORD",\n'
       '  "value": "jsonPairLn-Petrel-77"\n}\n', "jsonPairLn-Petrel-77"),
    _f("conf/json_pass.json", '{"credentials": {"user": "a", "pass": "jsonPass-Ocelot-93"}}\n',
       "jsonPass-Ocelot-93"),
    _f("conf/xml_next.xml", "<config>\n  <password>\n    xmlNext-Pika-15\n  </password>\n"
       "</config>\n", "xmlNext-Pika-15"),
    _f("conf/xml_cdata.xml", "<config><secret><![CDATA[xmlCdata-Quokka-26]]></secret></config>\n",
       "xmlCdata-Quokka-26"),
    _f("conf/app.config", '<appSettings>\n  <add key="DbPassword" value="xmlAttr-Rhea-37"/>\n'
       "</appSettings>\n", "xmlAttr-Rhea-37"),
    _f("conf/users.xml", '<users><user name="admin" password="xmlPwAttr-Serval-48"/></users>\n',
       "xmlPwAttr-Serval-48"),
    _f("conf/settings.xml", "<servers>\n  <server>\n    <id>nexus</id>\n"
       "    <username>deploy</username>\n    <password>mavenSrv-Tamarin-59</password>\n"
       "  </server>\n</servers>\n", "mavenSrv-Tamarin-59"),
    _f("conf/core-site.xml", "<configuration>\n  <property>\n    <name>fs.s3a.secret.key</name>\n"
       "    <value>hadoopVal-Urial-61</value>\n  </property>\n</configuration>\n",
       "hadoopVal-Urial-61"),
    _f("conf/web.config", '<connectionStrings>\n  <add name="Db" connectionString="Server=db;'
       'User ID=sa;Password=netConn-Vicuna-72;" />\n</connectionStrings>\n', "netConn-Vicuna-72"),
    # .netrc, .pgpass shapes (in files the walker indexes)
    _f("ops/netrc", "machine api.example.com\n  login deploy\n  password netrcPw-Wombat-83\n",
       "netrcPw-Wombat-83"),
    _f("ops/netrc_one_line", "machine github.com login bot password netrcOne-Xerus-94\n",
       "netrcOne-Xerus-94"),
    _f("ops/pgpass.txt", "db.internal:5432:app:appuser:pgpass-Yak-16\n", "pgpass-Yak-16"),
    # shell, environment
    _f("scripts/env_cont.sh", "export DB_PASSWORD=\\\n  shellCont-Zebu-27\n", "shellCont-Zebu-27"),
    _f("scripts/run_quoted.sh", "PASSWORD='shellQuote-Bongo-49' ./run.sh\n",
       "shellQuote-Bongo-49"),
    _f("scripts/win.bat", "@echo off\nset DB_PASS=winSet-Caracal-51\n", "winSet-Caracal-51"),
    _f("scripts/env.ps1", '$env:API_KEY = "psEnv-Dhole-62"\n', "psEnv-Dhole-62"),
    _f("scripts/secure.ps1", '$pw = ConvertTo-SecureString "psSecure-Eland-73" -AsPlainText '
       "-Force\n", "psSecure-Eland-73"),
    _f("scripts/config.fish", "set -x GITHUB_TOKEN fishSet9Fossa84Tq\n", "fishSet9Fossa84Tq"),
    _f("deploy/app.service", '[Service]\nEnvironment="DB_PASSWORD=systemd-Genet-95"\n',
       "systemd-Genet-95"),
    _f("scripts/heredoc.sh", "cat > .env <<EOF\nSECRET_KEY=heredoc-Agouti-38\nEOF\n",
       "heredoc-Agouti-38"),
    _f("scripts/export_multi.sh", "export \\\n  API_SECRET=\\\n    exportMulti-Hoatzin-57\n",
       "exportMulti-Hoatzin-57"),
    # command-line passwords
    _f("scripts/curl_attached.sh", "curl -uadmin:curlAttached-Hutia-17 https://api.example.com\n",
       "curlAttached-Hutia-17"),
    _f("scripts/curl_spaced.sh", "curl -u admin:curlSpaced-Indri-28 https://api.example.com\n",
       "curlSpaced-Indri-28"),
    _f("scripts/sqlcmd.cmd", 'sqlcmd -S db -U sa -P sqlcmdPw-Jerboa-39 -Q "select 1"\n',
       "sqlcmdPw-Jerboa-39"),
    _f("scripts/ldap.sh", 'ldapsearch -x -D "cn=admin,dc=example" -w ldapPw-Kiang-41 -b '
       '"dc=example"\n', "ldapPw-Kiang-41"),
    _f("scripts/smb.sh", "smbclient //srv/share -U alice%smbPw-Loris-52\n", "smbPw-Loris-52"),
    _f("scripts/sevenzip.sh", "7z a -pSevenZip-Margay-63 archive.7z files/\n",
       "SevenZip-Margay-63"),
    _f("scripts/zip.sh", "zip -P zipPw-Nilgai-74 out.zip report.pdf\n", "zipPw-Nilgai-74"),
    _f("scripts/keygen.sh", 'ssh-keygen -t ed25519 -N sshkeygen-Okapi-85 -f deploy_key\n',
       "sshkeygen-Okapi-85"),
    _f("scripts/openssl_k.sh", "openssl enc -aes-256-cbc -k opensslK-Paca-96 -in a -out b\n",
       "opensslK-Paca-96"),
    _f("scripts/openssl_out.sh", "openssl pkcs12 -export -passout pass:opensslOut-Quoll-18 "
       "-out x.p12\n", "opensslOut-Quoll-18"),
    _f("scripts/mysqldump.sh", "mysqldump -uroot -pmysqldumpPw-Ratel-29 app > app.sql\n",
       "mysqldumpPw-Ratel-29"),
    _f("scripts/wget.sh", "wget --user=bob --password=wgetPw-Tayra-42 https://x.example\n",
       "wgetPw-Tayra-42"),
    _f("scripts/clone.sh", "git clone https://oauth2:gitTok-Uakari-53@gitlab.example.com/x.git\n",
       "gitTok-Uakari-53"),
    _f("scripts/docker_login.sh", "docker login -u bob -p dockerLogin-Vole-64 registry.example\n",
       "dockerLogin-Vole-64"),
    _f("scripts/htpasswd.sh", "htpasswd -b -c .htpasswd admin htpass-Wisent-75\n",
       "htpass-Wisent-75"),
    _f("scripts/sshpass.sh", "sshpass -p sshpass-Xenops-86 ssh deploy@host\n",
       "sshpass-Xenops-86"),
    _f("scripts/mongo.sh", "mongo --username admin --password mongoPw-Yapok-97 app\n",
       "mongoPw-Yapok-97"),
    _f("scripts/redis.sh", "redis-cli -a redisAuth-Zorilla-19 ping\n", "redisAuth-Zorilla-19"),
    _f("scripts/unzip.sh", "unzip -P unzipPw-Aye-28 bundle.zip\n", "unzipPw-Aye-28"),
    _f("scripts/rar.sh", "rar a -prarPw-Binturong-39 backup.rar data/\n", "rarPw-Binturong-39"),
    _f("scripts/gpg.sh", "gpg --batch --passphrase gpgPass-Colugo-41 -d secrets.gpg\n",
       "gpgPass-Colugo-41"),
    _f("scripts/keytool.sh", "keytool -genkey -alias app -storepass keytoolStore-Dugong-52 "
       "-keypass keytoolKey-Echidna-63\n", "keytoolStore-Dugong-52", "keytoolKey-Echidna-63"),
    _f("scripts/net_use.cmd", r"net use \\srv\share /user:admin netUse-Fossa2-74" + "\n",
       "netUse-Fossa2-74"),
    _f("scripts/lftp.sh", "lftp -u admin,lftpPw-Gundi-96 ftp.example.com\n", "lftpPw-Gundi-96"),
    _f("scripts/rdp.sh", "xfreerdp /u:admin /p:rdpPw-Hirola-17 /v:host.example\n",
       "rdpPw-Hirola-17"),
    _f("scripts/psexec.cmd", r"psexec \\host -u admin -p psexecPw-Ibex2-28 cmd" + "\n",
       "psexecPw-Ibex2-28"),
    _f("scripts/pg.sh", "PGPASSWORD=pgEnv-Jacamar-39 pg_dump -h db app\n", "pgEnv-Jacamar-39"),
    _f("scripts/mysql_long.sh", "mysql --user=root --password=mysqlLong-Kinkajou-41 app\n",
       "mysqlLong-Kinkajou-41"),
    # token prefixes
    _f("docs/hf.md", "Log in with hf_QmVtXrPzKbLcYnWdFsGhJaTkEuRiOpAsDfGh12 first.\n",
       "hf_QmVtXrPzKbLcYnWdFsGhJaTkEuRiOpAsDfGh12"),
    _f("docs/doctl.md", f"doctl auth init -t dop_v1_{HEX64}\n", f"dop_v1_{HEX64}"),
    _f("docs/shopify.md", f"The store token is shpat_{HEX32}.\n", f"shpat_{HEX32}"),
    _f("docs/slack_workflow.md", "Trigger: https://hooks.slack.com/workflows/T01ABCDEF/A02GHIJKL/"
       "345678901234567890/qWeRtYuIoPaSdFgHjKlZxCvB\n", "qWeRtYuIoPaSdFgHjKlZxCvB"),
    _f("docs/npm.md", "npm token: npm_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c\n",
       "npm_Z9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF9eD8c"),
    _f("docs/linear.md", "LINEAR lin_api_Aq9Wz8Sx7Ed6Rc5Tf4Gb3Yh2Nu1Jm0Ki9Lo8Pq7Ws6\n",
       "lin_api_Aq9Wz8Sx7Ed6Rc5Tf4Gb3Yh2Nu1Jm0Ki9Lo8Pq7Ws6"),
    _f("docs/dockerhub.md", "echo dckr_pat_Xk29fQw8Lp3Zr7Vn5Bt1Hy6Mj4S | docker login\n",
       "dckr_pat_Xk29fQw8Lp3Zr7Vn5Bt1Hy6Mj4S"),
    _f("docs/postman.md", "PMAK-64a1b2c3d4e5f6a7b8c9d0e1-f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8\n",
       "PMAK-64a1b2c3d4e5f6a7b8c9d0e1-f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8"),
    _f("docs/grafana.md", "glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEyMzQtaW50ZWdyYXRpb24ifQ==\n",
       "glc_eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrLTEyMzQtaW50ZWdyYXRpb24ifQ=="),
    _f("docs/pulumi.md", "pul-3e9f1a7c5b2d8e4f6a0c9b1d3e5f7a9c2b4d6e8f\n",
       "pul-3e9f1a7c5b2d8e4f6a0c9b1d3e5f7a9c2b4d6e8f"),
    _f("docs/age.md", "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGP"
       "QYQS\n", "AGE-SECRET-KEY-1QYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQSZQGPQYQS"),
    _f("docs/google_oauth.md", "access: ya29.a0AfB_byC9dE8fG7hI6jK5lM4nO3pQ2rS1tU0vW\n",
       "ya29.a0AfB_byC9dE8fG7hI6jK5lM4nO3pQ2rS1tU0vW"),
    # calls in code
    _f("web/wp-config.php", "<?php\ndefine('DB_PASSWORD', 'phpDefine-Jabiru-39');\n",
       "phpDefine-Jabiru-39"),
    _f("app/settings_default.py", 'import os\nos.environ.setdefault("SECRET_KEY", '
       '"pyDefault-Kakapo-41")\n', "pyDefault-Kakapo-41"),
    _f("app/config_set.py", 'config.set("database", "password", "cfgSet-Loon-52")\n',
       "cfgSet-Loon-52"),
    _f("src/client.go", 'package client\n\nfunc sign(req *http.Request) {\n'
       '\treq.Header.Set("X-Api-Key", "goHeader9Murre63Kx")\n}\n', "goHeader9Murre63Kx"),
    _f("src/basic.go", 'package client\n\nfunc auth(req *http.Request) {\n'
       '\treq.SetBasicAuth("admin", "goBasic-Noddy-74")\n}\n', "goBasic-Noddy-74"),
    _f("web/login.js", 'localStorage.setItem("token", "lsToken9Oriole85Qw");\n',
       "lsToken9Oriole85Qw"),
    _f("web/session.js", "sessionStorage.setItem('authToken', 'ssToken7Pitta96Zr');\n",
       "ssToken7Pitta96Zr"),
    _f("db/grants.sql", "SET PASSWORD FOR 'app'@'%' = PASSWORD('sqlSetPw-Quetzal-18');\n",
       "sqlSetPw-Quetzal-18"),
    _f("db/grants2.sql", "SET PASSWORD FOR app = 'sqlSetPlain-Rhea2-29';\n",
       "sqlSetPlain-Rhea2-29"),
    _f("src/Props.java", 'props.setProperty("password", "javaProp-Tui-42");\n', "javaProp-Tui-42"),
    _f("src/Ssl.java", 'System.setProperty("javax.net.ssl.keyStorePassword", '
       '"javaSys-Umbra-53");\n', "javaSys-Umbra-53"),
    _f("src/Mail.cs", 'var cred = new NetworkCredential("mailer", "csCred-Vireo-64");\n',
       "csCred-Vireo-64"),
    _f("app/fetch.py", 'requests.get(url, auth=("svc", "pyAuth-Wren-75"))\n', "pyAuth-Wren-75"),
    _f("app/mailer.py", 'smtp.login("me@example.com", "smtpLogin-Xeme-86")\n',
       "smtpLogin-Xeme-86"),
    _f("app/headers.py", 'session.headers.update({"X-Auth-Token": "pyHdr9Yuhina97Qz"})\n',
       "pyHdr9Yuhina97Qz"),
    _f("web/fetch.js", "fetch(url, { headers: { 'x-api-key': 'jsHdr7Zitting18Wq' } });\n",
       "jsHdr7Zitting18Wq"),
    # a password split over two lines
    _f("app/split.py", 'DB_PASSWORD = ("splitPyA9x-"\n               "Dunnock42Qz")\n',
       "splitPyA9x-", "Dunnock42Qz"),
    _f("web/split.js", 'const secret = "splitJsB7y-" +\n  "Fulmar53Wv";\n', "splitJsB7y-",
       "Fulmar53Wv"),
    # prose in documentation
    _f("docs/admin.md", "The admin password is `proseTick-Gannet-64`.\n", "proseTick-Gannet-64"),
    _f("docs/login.md", "Use the password proseUse-Hoopoe-75 to log in to staging.\n",
       "proseUse-Hoopoe-75"),
    _f("docs/access.md", "Login: admin / Password: proseSlash-Jacana-86\n", "proseSlash-Jacana-86"),
    _f("docs/wifi.md", "Office wifi: SSID `guests`, passphrase proseWifi-Kea-97.\n",
       "proseWifi-Kea-97"),
]

QUESTIONS: list[tuple[str, tuple[str, ...]]] = [
    ("the GITHUB_TOKEN=qstGithubTok-Lapwing-18 fails with a 401, where is it read?",
     ("qstGithubTok-Lapwing-18",)),
    ("my password is qstMyPw-Myna-29 and the login still fails, where is login checked?",
     ("qstMyPw-Myna-29",)),
    ("I ran curl -u admin:qstCurl-Nene-31 and got 403, which handler answers?",
     ("qstCurl-Nene-31",)),
    ("why does export OPENAI_API_KEY=qstOpenai-Ouzel-42 not work with the client?",
     ("qstOpenai-Ouzel-42",)),
    ("my api key: qstApiKey-Prion-53 is rejected, how is it validated?",
     ("qstApiKey-Prion-53",)),
]

# A provider that answers 401 with the key it was sent, in full, in its error body.
PROVIDER_KEY = "provKey-Rail-64xQ9Tz"
PROVIDER_BODY = ('{"error": {"message": "Incorrect API key provided: ' + PROVIDER_KEY + '. '
                 'You can find your API key at https://platform.example.com/account/api-keys.", '
                 '"type": "invalid_request_error", "code": "invalid_api_key"}}')


def all_values() -> list[str]:
    return ([v for planted in FILES for v in planted.values]
            + [v for _, values in QUESTIONS for v in values] + [PROVIDER_KEY])


def count() -> int:
    """Formats: one per planted value (a file with three `ENV` lines plants three)."""
    return len(all_values())
