"""Secrets in every syntax Helix indexes: (file name, file text, the planted value).

Each value is unique, so a search for it anywhere (a prompt, an index part, a run-log row, an
export) finds it only if it leaked. Values are words, hex, short or long, quoted or not: what
makes each one secret is the place it stands in.
"""

from __future__ import annotations

import json

LONG_HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"


def _notebook(source: list[str]) -> str:
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
            "source": source}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                      indent=1)


CORPUS: list[tuple[str, str, str]] = [
    # assignments in code, every supported language
    ("settings.py", 'DB_PASSWORD = "plumtree-velvet-42"\n', "plumtree-velvet-42"),
    ("conf.py", "SECRET_KEY = 'quokka'\n", "quokka"),
    ("client.py", 'client = Client(api_key="zk81mqlx0pvt")\n', "zk81mqlx0pvt"),
    ("auth.py", 'headers["X-Api-Key"] = "kq2v9sd8w7ej"\n', "kq2v9sd8w7ej"),
    ("creds.py", 'CREDS = {"username": "bob", "password": "marmalade sky"}\n', "marmalade sky"),
    ("app.js", 'const dbPassword = "lanternfish77";\n', "lanternfish77"),
    ("config.ts", "export const apiSecret: string = 'ts-hidden-value';\n", "ts-hidden-value"),
    ("main.go", 'const adminPassword = "gopher-rides-north"\n', "gopher-rides-north"),
    ("Main.java", 'private static final String KEYSTORE_PASSWORD = "javabeanstalk";\n',
     "javabeanstalk"),
    ("App.kt", 'val clientSecret = "kotlin-kettle-91"\n', "kotlin-kettle-91"),
    ("lib.rs", 'let smtp_password = "rustacean-harbor";\n', "rustacean-harbor"),
    ("deploy.rb", "ENV['DEPLOY_TOKEN'] = 'rb7Tq9xLm2Pz'\n", "rb7Tq9xLm2Pz"),
    ("index.php", "$db_pass = 'elephant-in-blue';\n", "elephant-in-blue"),
    ("Program.cs", 'var connPassword = "csharp-violin";\n', "csharp-violin"),
    ("main.c", 'static const char *password = "c-pointer-maze";\n', "c-pointer-maze"),
    ("main.cpp", 'std::string mqtt_password{"cpp-brace-init"};\nauto pw = "x";\n'
     'const char* auth_token = "cppTok3nValue99";\n', "cppTok3nValue99"),
    ("script.sh", 'export GITHUB_TOKEN="shellTok3n8842Q"\n', "shellTok3n8842Q"),
    ("run.sh", "PGPASSWORD=pelican-dusk psql -h db -U app\n", "pelican-dusk"),
    ("build.gradle", "signingPassword = 'gradle-orchard'\n", "gradle-orchard"),
    ("query.sql", "CREATE USER app IDENTIFIED BY 'sql-ident-77';\n"
     "ALTER USER app WITH PASSWORD 'postgres-walrus';\n", "postgres-walrus"),
    # config formats
    ("env.example.txt", "WIFI_PASSWORD=purple-monkey-dishwasher-lantern\n",
     "purple-monkey-dishwasher-lantern"),
    ("settings.ini", "[database]\npassword = inifile-heron\n", "inifile-heron"),
    ("app.cfg", "[smtp]\nsmtp_pass: cfg-otter-bay\n", "cfg-otter-bay"),
    ("config.toml", '[service]\napi_key = "toml-ribbon-5521"\n', "toml-ribbon-5521"),
    ("values.yaml", "auth:\n  password: yaml-cactus-bloom\n", "yaml-cactus-bloom"),
    ("compose.yml", "environment:\n  - POSTGRES_PASSWORD=compose-gecko\n", "compose-gecko"),
    ("k8s.yaml", "stringData:\n  client-secret: k8s-lighthouse\n", "k8s-lighthouse"),
    ("settings.json", '{"service": {"secret": "json-walnut-88"}}\n', "json-walnut-88"),
    ("app.properties", "spring.datasource.password=props-meadow\n", "props-meadow"),
    ("tfvars.tf", 'variable "x" {}\ndb_password = "terraform-glacier"\n', "terraform-glacier"),
    ("Dockerfile", "ENV REGISTRY_PASSWORD=docker-anchor-6\n", "docker-anchor-6"),
    ("Makefile", "DEPLOY_TOKEN ?= makefile-comet-key\n", "makefile-comet-key"),
    ("nginx.conf", "auth_basic_user_file /etc/x;\nproxy_set_header Authorization "
     '"Basic bmdpbnhzZWNyZXQ6dmFsdWU=";\n', "bmdpbnhzZWNyZXQ6dmFsdWU="),
    # command lines
    ("curl.md", "Run `curl -u admin:curl-sparrow-3 https://api.internal/` first.\n",
     "curl-sparrow-3"),
    ("docker.md", "docker login -u ci -p docker-harbor-pass registry.example.com\n",
     "docker-harbor-pass"),
    ("htpasswd.sh", "htpasswd -b -c .htpasswd alice htpass-rainbow\n", "htpass-rainbow"),
    ("keytool.sh", "keytool -genkey -alias app -storepass keytool-tundra -keystore k.jks\n",
     "keytool-tundra"),
    ("gpg.sh", "gpg --batch --passphrase gpg-nebula-word --decrypt x.gpg\n", "gpg-nebula-word"),
    ("openssl.sh", "openssl rsa -in k.pem -passin pass:openssl-cobalt -out plain.pem\n",
     "openssl-cobalt"),
    ("mysql.md", "mysql -u root -pmysqlQuartz9 shop\n", "mysqlQuartz9"),
    ("sshpass.sh", "sshpass -p sshpass-bramble ssh deploy@host\n", "sshpass-bramble"),
    ("cli.md", "helper --password=flag-juniper sync\n", "flag-juniper"),
    ("cli2.md", "tool --api-key flagKey77abc upload\n", "flagKey77abc"),
    ("redis.sh", "redis-cli -a redis-falcon-9 ping\n", "redis-falcon-9"),
    # markup and headers
    ("web.xml", "<config>\n  <password>xml-lagoon</password>\n</config>\n", "xml-lagoon"),
    ("app.config", '<appSettings>\n  <add key="DbPassword" value="dotnet-prairie" />\n'
     "</appSettings>\n", "dotnet-prairie"),
    ("pom.xml", "<server>\n  <id>r</id>\n  <password>maven-thistle</password>\n</server>\n",
     "maven-thistle"),
    ("page.html", '<input type="hidden" name="csrf" value="x">\n<input name="api_token" '
     'value="htmlTok3nZq81">\n', "htmlTok3nZq81"),
    ("http.md", "Authorization: Bearer hdrBearer9d8f7g6h5\n", "hdrBearer9d8f7g6h5"),
    ("http2.md", "X-Auth-Token: xAuthTok8812kk\n", "xAuthTok8812kk"),
    ("basic.md", "Authorization: Basic dXNlcjpiYXNpYy1tYXBsZQ==\n", "dXNlcjpiYXNpYy1tYXBsZQ=="),
    # URLs and connection strings
    ("db.md", "DATABASE_URL=postgres://app:url-pinecone@db:5432/app\n", "url-pinecone"),
    ("mongo.md", "mongodb+srv://svc:mongo-saffron@cluster0.example.net/db\n", "mongo-saffron"),
    ("ado.md", "Server=db;Database=app;User Id=sa;Password=ado-tamarind;\n", "ado-tamarind"),
    ("query.md", "GET https://api.example.com/v1/items?access_token=qTok3n55abcXY&page=2\n",
     "qTok3n55abcXY"),
    ("hooks.md", "Post to https://hooks.slack.com/services/T0000/B0000/slackHookSecret99\n",
     "slackHookSecret99"),
    ("discord.md", "https://discord.com/api/webhooks/123456789/discordHookTokenAbc123\n",
     "discordHookTokenAbc123"),
    ("teams.md", "https://acme.webhook.office.com/webhookb2/teamsHookValue-77aa\n",
     "teamsHookValue-77aa"),
    # prose
    ("notes.md", "The password is: correct horse battery staple\n",
     "correct horse battery staple"),
    ("runbook.md", 'The admin passphrase is "lilac under moonlight".\n', "lilac under moonlight"),
    # long lines, escapes, hex, key formats
    ("long.js", "var a=" + "1," * 2500 + 'apiSecret="long-line-heliotrope";\n',
     "long-line-heliotrope"),
    ("longhex.js", "var b=" + "2," * 2500 + f'signing_key="{LONG_HEX}";\n', LONG_HEX),
    ("analysis.ipynb", _notebook(['API_TOKEN = "nbTok3nQw88zz"\n', 'password = "nb-fjord"\n']),
     "nb-fjord"),
    ("analysis2.ipynb", _notebook(['creds = {"secret": "nb-escaped-sequoia"}\n']),
     "nb-escaped-sequoia"),
    ("keys.md", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYQ7ZMPLKEY1\n",
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYQ7ZMPLKEY1"),
    ("stripe.py", 'stripe.api_key = "sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc"\n',
     "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("gh.yml", "token: ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8\n",
     "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"),
]

# Files whose planted value is a second one in the same text (checked too).
EXTRA_VALUES = {"main.cpp": ("cpp-brace-init",), "query.sql": ("sql-ident-77",),
                "analysis.ipynb": ("nbTok3nQw88zz",)}


def all_values() -> list[str]:
    values = [value for _, _, value in CORPUS]
    for extra in EXTRA_VALUES.values():
        values += extra
    return values
