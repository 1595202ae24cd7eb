"""A real OpenID Connect provider for WOPIKit's tests: django-oidc-provider (PyPI) in one file.

bash .ci/run installs Django and django-oidc-provider into .build/venv-oidc; the tests run this script with that
virtual environment's Python, on 127.0.0.1, with every file in a temporary folder, and stop it by its PID.

  provider.py setup  FOLDER PORT REDIRECT_URI CLIENT_ID CLIENT_SECRET USER PASSWORD
      a database with one person (USER / PASSWORD, "Jane Doe"), one confidential client allowed REDIRECT_URI
      exactly (RS256 id_tokens, no consent page), two public clients for apps ("provider-app", "other-app"),
      and one RSA signing key
  provider.py serve  FOLDER PORT        the provider at http://127.0.0.1:PORT/openid (Django's server, no reloader)
  provider.py rotate FOLDER PORT        replaces every signing key with a new one (a key rotation); prints its kid
  provider.py redirect FOLDER PORT URI  makes URI the host's client's only redirect URI
  provider.py app-token FOLDER PORT CLIENT_ID USER PASSWORD
      signs USER in at the running provider as the public client CLIENT_ID (the provider's iOS app, or another app of
      the same provider) through its token endpoint, and prints the id_token it issued to that client
"""

import os
import secrets
import sys

import django
from django.conf import settings


def configure(folder, port):
    templates = os.path.join(folder, "templates")
    os.makedirs(templates, exist_ok=True)
    with open(os.path.join(templates, "login.html"), "w", encoding="utf-8") as page:
        page.write(
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head><body>'
            '<h1>Test identity provider</h1><form method="post" id="idp-login">{% csrf_token %}'
            '<input type="hidden" name="next" value="{{ next }}">'
            '<label for="id_username">User</label><input name="username" id="id_username" autocomplete="username">'
            '<label for="id_password">Password</label><input type="password" name="password" id="id_password">'
            '<button type="submit" id="idp-submit">Log in</button></form></body></html>'
        )
    secret_file = os.path.join(folder, "django-secret")
    if not os.path.exists(secret_file):
        with open(secret_file, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_urlsafe(48))
    with open(secret_file, encoding="utf-8") as handle:
        secret_key = handle.read()
    settings.configure(
        DEBUG=False,
        SECRET_KEY=secret_key,
        ALLOWED_HOSTS=["127.0.0.1", "localhost"],
        ROOT_URLCONF=__name__,
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "oidc_provider",
        ],
        MIDDLEWARE=[
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.middleware.csrf.CsrfViewMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(folder, "provider.sqlite3")}},
        TEMPLATES=[{
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "DIRS": [templates],
            "APP_DIRS": True,
            "OPTIONS": {"context_processors": ["django.template.context_processors.request",
                                               "django.contrib.auth.context_processors.auth"]},
        }],
        USE_TZ=True,
        LOGIN_URL="/accounts/login/",
        SITE_URL="http://127.0.0.1:%d" % port,
        # Its cookies must not collide with the host's on the same address.
        SESSION_COOKIE_NAME="idp_session",
        CSRF_COOKIE_NAME="idp_csrf",
        OIDC_IDTOKEN_INCLUDE_CLAIMS=True,
        OIDC_USERINFO=__name__ + ".userinfo",
        PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"],
        # The apps' own sign-in (app-token): the resource owner password grant, for the tests' apps only.
        OIDC_GRANT_TYPE_PASSWORD_ENABLE=True,
    )
    django.setup()


def userinfo(claims, user):
    claims["name"] = ("%s %s" % (user.first_name, user.last_name)).strip()
    claims["preferred_username"] = user.username
    claims["email"] = user.email
    return claims


def new_key():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from oidc_provider.models import RSAKey

    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    key = RSAKey(key=pem.decode("ascii"))
    key.save()
    return key


urlpatterns = []


def main():
    command, folder, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    configure(folder, port)
    from django.contrib.auth.views import LoginView
    from django.urls import include, path

    urlpatterns.extend([
        path("openid/", include("oidc_provider.urls", namespace="oidc_provider")),
        path("accounts/login/", LoginView.as_view(template_name="login.html")),
    ])
    from django.core.management import call_command

    if command == "setup":
        redirect_uri, client_id, client_secret, user, password = sys.argv[4:9]
        call_command("migrate", verbosity=0, interactive=False)
        from django.contrib.auth.models import User
        from oidc_provider.models import Client, ResponseType

        person = User.objects.create_user(user, email=user + "@example.com", password=password)
        person.first_name, person.last_name = "Jane", "Doe"
        person.save()
        client = Client(name="WOPIKit", client_type="confidential", client_id=client_id, client_secret=client_secret,
                        jwt_alg="RS256", require_consent=False, reuse_consent=True)
        client.redirect_uris = [redirect_uri]
        client.scope = ["openid", "profile", "email"]
        client.save()
        client.response_types.add(ResponseType.objects.get(value="code"))
        for app in ("provider-app", "other-app"):
            app_client = Client(name=app, client_type="public", client_id=app, jwt_alg="RS256", require_consent=False)
            app_client.redirect_uris = [app + ":/callback"]
            app_client.scope = ["openid", "profile", "email"]
            app_client.save()
        new_key()
        print("user", person.pk)
    elif command == "rotate":
        from oidc_provider.models import RSAKey

        RSAKey.objects.all().delete()
        print(new_key().kid)
    elif command == "redirect":
        from oidc_provider.models import Client

        client = Client.objects.get(client_type="confidential")
        client.redirect_uris = [sys.argv[4]]
        client.save()
    elif command == "app-token":
        import json
        import urllib.parse
        import urllib.request

        client_id, user, password = sys.argv[4:7]
        form = urllib.parse.urlencode({"grant_type": "password", "client_id": client_id, "username": user, "password": password,
                                       "scope": "openid profile"}).encode("ascii")
        with urllib.request.urlopen("http://127.0.0.1:%d/openid/token" % port, data=form, timeout=30) as answer:
            print(json.load(answer)["id_token"])
    elif command == "serve":
        from django.core.management.commands.runserver import Command as RunServer

        RunServer().run_from_argv(["provider.py", "runserver", "127.0.0.1:%d" % port, "--noreload"])
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
