"""Calls a blogread server through a Python client generated from openapi/openapi.json by
openapi-python-client (scripts/with-python-client), as an integrator would: every call must
parse into the model the document promises (never None, never an error body), so a model the
generator dropped, or an answer it cannot read, fails here.

Run by tests/tests/python_client.rs, which starts the server and passes:

  BLOGREAD_BASE_URL        the server's root URL
  BLOGREAD_OPERATOR_TOKEN  its operator token
  BLOGREAD_HOOK_URL        a deploy hook URL the server may fire (a receiver of the test)
"""

import datetime
import os
import sys
from uuid import UUID

from blogread_api import AuthenticatedClient
from blogread_api.api.blogs import (
    create_blog,
    get_managed_blog,
    list_backlinks,
    list_links,
    list_managed_blogs,
    publish_blog,
    unpublish_blog,
    update_blog,
)
from blogread_api.api.deploy_hook import (
    get_deploy_hook,
    list_deliveries,
    save_deploy_hook,
    test_deploy_hook,
)
from blogread_api.api.keys import generate_public_key
from blogread_api.api.projects import create_project, get_project, list_projects
from blogread_api.api.public import get_blog, get_redirects, get_sitemap, list_blogs, list_changes
from blogread_api.models import (
    BacklinkList,
    BlogDetail,
    BlogList,
    BlogStatus,
    ChangeEntryChangeDelete,
    ChangeEntryChangeUpsert,
    ChangeFeed,
    CreateBlog,
    CreateProject,
    Delivery,
    DeliveryList,
    DeployHook,
    DeployHookTestResult,
    ManagedBlog,
    ManagedBlogList,
    LinkList,
    Project,
    ProjectList,
    PublicKey,
    PublishBlog,
    PublishedManagedBlog,
    Redirects,
    SaveDeployHook,
    Sitemap,
    Trigger,
    UpdateBlog,
)


def expect(value, model, what):
    """The call parsed into `model`, or the check fails naming the call."""
    if not isinstance(value, model):
        sys.exit(f"{what}: expected a {model.__name__}, got {value!r}")
    print(f"ok  {what}: {model.__name__}")
    return value


def main():
    base = os.environ["BLOGREAD_BASE_URL"]
    operator = AuthenticatedClient(
        base_url=base,
        token=os.environ["BLOGREAD_OPERATOR_TOKEN"],
        raise_on_unexpected_status=True,
    )

    project = expect(
        create_project.sync(
            client=operator,
            body=CreateProject(name="Python client", site_url="https://www.example.com"),
        ),
        Project,
        "create_project",
    )
    pid = UUID(project.id)
    expect(get_project.sync(pid, client=operator), Project, "get_project")
    projects = expect(list_projects.sync(client=operator), ProjectList, "list_projects")
    assert any(p.id == project.id for p in projects.projects), projects
    key = expect(generate_public_key.sync(pid, client=operator), PublicKey, "generate_public_key")

    hook = expect(
        save_deploy_hook.sync(
            pid, client=operator, body=SaveDeployHook(deploy_hook_url=os.environ["BLOGREAD_HOOK_URL"])
        ),
        DeployHook,
        "save_deploy_hook",
    )
    assert hook.has_hook, hook
    expect(get_deploy_hook.sync(pid, client=operator), DeployHook, "get_deploy_hook")

    target = expect(
        create_blog.sync(
            pid,
            client=operator,
            body=CreateBlog(title="Target", slug="target", content="<p>The target.</p>"),
        ),
        ManagedBlog,
        "create_blog",
    )
    draft = expect(
        create_blog.sync(
            pid,
            client=operator,
            body=CreateBlog(
                title="Hello from Python",
                slug="hello-from-python",
                content='<p>See <a href="[INTERNAL:target]">the target</a>.</p>',
                categories=["Engineering"],
                tags=["python"],
            ),
        ),
        ManagedBlog,
        "create_blog",
    )
    assert draft.status == BlogStatus.DRAFT, draft.status
    edited = expect(
        update_blog.sync(pid, UUID(draft.id), client=operator, body=UpdateBlog(excerpt="Generated.")),
        ManagedBlog,
        "update_blog",
    )
    assert edited.excerpt == "Generated.", edited
    expect(publish_blog.sync(pid, UUID(target.id), client=operator), PublishedManagedBlog, "publish_blog")
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    published = expect(
        publish_blog.sync(pid, UUID(draft.id), client=operator, body=PublishBlog(published_at=when)),
        PublishedManagedBlog,
        "publish_blog with published_at",
    )
    assert published.status == BlogStatus.PUBLISHED, published.status
    assert published.published_at == when, published.published_at
    expect(get_managed_blog.sync(pid, UUID(draft.id), client=operator), ManagedBlog, "get_managed_blog")
    managed = expect(list_managed_blogs.sync(pid, client=operator), ManagedBlogList, "list_managed_blogs")
    assert len(managed.blogs) == 2 and all(isinstance(b, ManagedBlog) for b in managed.blogs), managed
    expect(list_links.sync(pid, client=operator), LinkList, "list_links")
    expect(list_backlinks.sync(pid, UUID(target.id), client=operator), BacklinkList, "list_backlinks")

    reader = AuthenticatedClient(base_url=base, token=key.key, raise_on_unexpected_status=True)
    page = expect(list_blogs.sync(client=reader, include_content=True), BlogList, "list_blogs")
    assert page.total == 2, page
    one = expect(get_blog.sync("hello-from-python", client=reader), BlogDetail, "get_blog")
    assert 'href="https://www.example.com/blog/target/"' in one.content, one.content
    assert one.word_count == 3, one.word_count
    sitemap = expect(get_sitemap.sync(client=reader), Sitemap, "get_sitemap")
    assert sitemap.total == 2, sitemap
    expect(get_redirects.sync(client=reader), Redirects, "get_redirects")
    feed = expect(list_changes.sync(client=reader), ChangeFeed, "list_changes")
    assert len(feed.changes) == 2 and not feed.has_more, feed
    assert all(isinstance(c, ChangeEntryChangeUpsert) for c in feed.changes), feed.changes
    assert all(isinstance(c.blog, BlogDetail) for c in feed.changes), feed.changes
    unpublish_blog.sync(pid, UUID(target.id), client=operator)
    since = expect(list_changes.sync(client=reader, since=feed.cursor), ChangeFeed, "list_changes since")
    assert any(isinstance(c, ChangeEntryChangeDelete) and c.slug == "target" for c in since.changes), since

    tested = expect(test_deploy_hook.sync(pid, client=operator), DeployHookTestResult, "test_deploy_hook")
    assert tested.success, tested
    deliveries = expect(list_deliveries.sync(pid, client=operator), DeliveryList, "list_deliveries")
    assert deliveries.deliveries, "the test firing is in the delivery log"
    for delivery in deliveries.deliveries:
        expect(delivery, Delivery, "a delivery")
    assert any(d.trigger == Trigger.TEST for d in deliveries.deliveries), deliveries
    print("every call parsed into its model")


if __name__ == "__main__":
    main()
