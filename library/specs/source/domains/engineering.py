"""Software engineering services: issue tracking, code hosting and a managed database platform."""

from __future__ import annotations

from ..fields import arr, boolean, dt, email, enum, integer, ref, s, tags, url
from ..model import Action, Resource, Service

ISSUE_TRACKER = Service(
    name="issue_tracker",
    title="Trackwise Issues",
    domain="engineering",
    format="openapi30_yaml",
    desc=(
        "Trackwise tracks software work: projects, issues (bugs, stories, tasks) that move through "
        "a workflow, comments and sprints."
    ),
    resources=(
        Resource(
            "project",
            "A product or team space with its own issue key prefix, e.g. ENG.",
            (
                s(
                    "key",
                    "Issue key prefix; uppercase letters.",
                    req=True,
                    immut=True,
                    pattern=r"^[A-Z][A-Z0-9]{1,9}$",
                    ex="ENG",
                ),
                s("name", "Project name.", req=True, ex="Platform Engineering"),
                email("lead_email", "Project lead.", req=True),
                s("description", "What the project covers."),
            ),
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "issue",
            "A bug, story or task with a workflow status, an assignee and an estimate.",
            (
                ref(
                    "project_id",
                    "project",
                    "Project the issue belongs to.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                s("key", "Human-readable key, e.g. ENG-142.", ro=True, ex="ENG-142"),
                s(
                    "summary",
                    "One-line summary.",
                    req=True,
                    ex="Checkout fails for carts over 100 items",
                ),
                s("description", "Details in Markdown, with steps to reproduce for bugs."),
                enum(
                    "type",
                    ("bug", "story", "task", "epic"),
                    "Issue type.",
                    default="task",
                    filt=True,
                ),
                enum(
                    "status",
                    ("backlog", "todo", "in_progress", "in_review", "done", "wont_do"),
                    "Workflow status.",
                    ro=True,
                    filt=True,
                ),
                enum(
                    "priority",
                    ("lowest", "low", "medium", "high", "highest"),
                    "Priority.",
                    default="medium",
                    filt=True,
                ),
                email("reporter_email", "Who reported the issue.", req=True, filt=True),
                email("assignee_email", "Who works on it.", null=True, filt=True),
                ref("sprint_id", "sprint", "Sprint the issue is planned in.", null=True, filt=True),
                integer("story_points", "Estimate.", null=True, minimum=0),
                s(
                    "ticket_id",
                    "Helpdesk ticket that reported the problem, if any.",
                    null=True,
                    ex="tic_1f8e2a4d",
                ),
                tags("labels", "Labels."),
                s("due_date", "Due date (YYYY-MM-DD).", fmt="date", null=True, ex="2025-08-01"),
                dt("resolved_at", "When the issue reached done or won't do.", ro=True, null=True),
            ),
            search_fields=("key", "summary", "description"),
            docs={
                "create": (
                    "The issue key is assigned from the project's key prefix, "
                    "e.g. ENG-142. New issues start in `backlog`."
                )
            },
        ),
        Resource(
            "comment",
            "A comment on an issue.",
            (
                ref("issue_id", "issue", "Issue commented on.", req=True, immut=True),
                s("body", "Comment in Markdown.", req=True),
                email("author_email", "Author.", ro=True),
            ),
            parent="issue",
            ops=("create", "list", "update", "delete"),
        ),
        Resource(
            "sprint",
            "A time-boxed iteration issues are planned into.",
            (
                ref("project_id", "project", "Project.", req=True, filt=True),
                s("name", "Sprint name.", req=True, ex="Sprint 31"),
                s("goal", "Sprint goal."),
                s("start_date", "First day (YYYY-MM-DD).", fmt="date", req=True, ex="2025-07-14"),
                s("end_date", "Last day (YYYY-MM-DD).", fmt="date", req=True, ex="2025-07-25"),
                enum("state", ("future", "active", "closed"), "Sprint state.", ro=True, filt=True),
            ),
            ops=("create", "get", "list", "update"),
        ),
    ),
    actions=(
        Action(
            "transition_issue",
            "issue",
            "Change status",
            (
                "Moves an issue to another workflow status; moving to `done` or "
                "`wont_do` sets `resolved_at`."
            ),
            params=(
                enum(
                    "status",
                    ("backlog", "todo", "in_progress", "in_review", "done", "wont_do"),
                    "Target status.",
                    req=True,
                ),
                s("comment", "Comment added with the transition."),
            ),
            verb="transitions",
        ),
        Action(
            "assign_issue",
            "issue",
            "Assign an issue",
            "Assigns an issue to a person, or unassigns it when `assignee_email` is null.",
            params=(email("assignee_email", "New assignee.", req=True, null=True),),
            verb="assignee",
            method="PUT",
        ),
        Action(
            "close_sprint",
            "sprint",
            "Complete a sprint",
            (
                "Closes the active sprint and moves unfinished issues to the backlog or "
                "another sprint."
            ),
            params=(
                ref(
                    "move_open_issues_to",
                    "sprint",
                    "Sprint that receives unfinished issues; backlog when omitted.",
                    null=True,
                ),
            ),
            verb="complete",
        ),
    ),
)

CODE_HOSTING = Service(
    name="code_hosting",
    title="Forge Code Hosting",
    domain="engineering",
    format="openapi30_yaml",
    desc="Forge hosts Git repositories with branches, pull requests, code review and releases.",
    paging="cursor",
    resources=(
        Resource(
            "repository",
            "A Git repository with its default branch and visibility.",
            (
                s(
                    "name",
                    "Repository name, unique in the organization.",
                    req=True,
                    pattern=r"^[A-Za-z0-9._-]+$",
                    ex="checkout-service",
                ),
                s("description", "Short description."),
                enum(
                    "visibility",
                    ("private", "internal", "public"),
                    "Who can see it.",
                    default="private",
                    filt=True,
                ),
                s("default_branch", "Branch pull requests target by default.", default="main"),
                url(
                    "clone_url",
                    "HTTPS clone URL.",
                    ro=True,
                    ex="https://forge.example.com/northwind/checkout-service.git",
                ),
                boolean("archived", "Archived repositories are read-only.", ro=True, filt=True),
            ),
            plural="repositories",
            ops=("create", "get", "list", "update", "delete", "search"),
            search_fields=("name", "description"),
        ),
        Resource(
            "branch",
            "A named line of development in a repository.",
            (
                ref("repository_id", "repository", "Repository.", req=True, immut=True),
                s("name", "Branch name.", req=True, ex="fix/ENG-142-large-carts"),
                s(
                    "from_ref",
                    "Branch or commit SHA to start from.",
                    req=True,
                    immut=True,
                    ex="main",
                ),
                s("head_sha", "Latest commit SHA.", ro=True),
                boolean("protected", "Protected branches refuse direct pushes.", ro=True),
            ),
            parent="repository",
            plural="branches",
            ops=("create", "list", "delete"),
        ),
        Resource(
            "pull_request",
            "A proposal to merge one branch into another, with review and checks.",
            (
                ref("repository_id", "repository", "Repository.", req=True, immut=True, filt=True),
                integer("number", "Pull request number within the repository.", ro=True, ex=318),
                s(
                    "title",
                    "Title; include the issue key to link the issue.",
                    req=True,
                    ex="ENG-142: paginate cart validation",
                ),
                s("body", "Description in Markdown."),
                s("head_branch", "Branch with the changes.", req=True, immut=True),
                s("base_branch", "Branch to merge into.", req=True),
                email("author_email", "Author.", ro=True, filt=True),
                arr(
                    "reviewer_emails",
                    email("reviewer_email", "A requested reviewer."),
                    "Requested reviewers.",
                    ro=True,
                ),
                s(
                    "issue_key",
                    "Linked issue in the issue tracker, e.g. ENG-142.",
                    null=True,
                    ex="ENG-142",
                ),
                enum("state", ("open", "merged", "closed"), "State.", ro=True, filt=True),
                boolean("draft", "Draft pull requests cannot be merged.", default=False),
                url("web_url", "Link to the pull request.", ro=True),
                dt("merged_at", "When it was merged.", ro=True, null=True),
            ),
            ops=("create", "get", "list", "update", "search"),
            search_fields=("title", "body"),
        ),
        Resource(
            "release",
            "A tagged release with notes.",
            (
                ref("repository_id", "repository", "Repository.", req=True, immut=True, filt=True),
                s("tag", "Git tag, e.g. v2.4.0.", req=True, ex="v2.4.0"),
                s("name", "Release title."),
                s("notes", "Release notes in Markdown."),
                boolean("prerelease", "Mark as pre-release.", default=False),
                dt("published_at", "When it was published.", ro=True),
            ),
            ops=("create", "get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "merge_pull_request",
            "pull_request",
            "Merge a pull request",
            "Merges an open pull request when checks pass and reviews are approved.",
            params=(
                enum("method", ("merge", "squash", "rebase"), "Merge method.", default="squash"),
                boolean("delete_branch", "Delete the head branch afterwards.", default=True),
            ),
            returns=(
                ref("pull_request_id", "pull_request", "The pull request.", req=True),
                s("merge_commit_sha", "SHA of the merge commit.", req=True),
                dt("merged_at", "When it merged.", req=True),
            ),
            verb="merge",
        ),
        Action(
            "request_review",
            "pull_request",
            "Request reviewers",
            "Asks people to review a pull request; they are notified.",
            params=(
                arr(
                    "reviewer_emails",
                    email("reviewer_email", "A reviewer."),
                    "People to ask.",
                    req=True,
                ),
            ),
            verb="reviewers",
        ),
        Action(
            "close_pull_request",
            "pull_request",
            "Close without merging",
            "Closes a pull request without merging it.",
            verb="close",
        ),
    ),
)

DB_PLATFORM = Service(
    name="db_platform",
    title="Keel Managed Databases",
    domain="engineering",
    format="swagger",
    op_style="camel",
    desc=(
        "Keel runs managed PostgreSQL and MySQL: database clusters, users, "
        "backups and point-in-time restore."
    ),
    resources=(
        Resource(
            "cluster",
            "A managed database cluster in one region.",
            (
                s(
                    "name",
                    "Cluster name.",
                    req=True,
                    immut=True,
                    pattern=r"^[a-z][a-z0-9-]{2,40}$",
                    ex="orders-prod",
                ),
                enum(
                    "engine",
                    ("postgres", "mysql"),
                    "Database engine.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                s("engine_version", "Engine version.", req=True, ex="16"),
                enum(
                    "region",
                    ("us-east", "us-west", "eu-central", "ap-southeast"),
                    "Region.",
                    req=True,
                    immut=True,
                    filt=True,
                ),
                enum(
                    "size",
                    ("small", "medium", "large", "xlarge"),
                    "Instance size.",
                    default="small",
                ),
                integer("storage_gb", "Allocated storage.", default=20, minimum=10),
                integer("node_count", "Nodes including standbys.", default=1, minimum=1, maximum=3),
                email("owner_email", "Team contact for the cluster.", req=True),
                enum(
                    "status",
                    ("provisioning", "running", "resizing", "maintenance", "stopped"),
                    "Cluster status.",
                    ro=True,
                    filt=True,
                ),
                s(
                    "host",
                    "Connection host name.",
                    ro=True,
                    ex="orders-prod.eu-central.keel.example.com",
                ),
            ),
            docs={
                "delete": (
                    "Deleting a cluster also deletes its automatic backups; manual backups "
                    "are kept for 7 days."
                )
            },
            ops=("create", "get", "list", "update", "delete"),
        ),
        Resource(
            "database_user",
            "A login role on a cluster.",
            (
                ref("cluster_id", "cluster", "Cluster.", req=True, immut=True, filt=True),
                s("username", "Role name.", req=True, immut=True, ex="app_rw"),
                enum(
                    "role", ("read_only", "read_write", "admin"), "Privileges.", default="read_only"
                ),
                s("password", "Generated password; returned once on creation.", ro=True),
            ),
            label="database user",
            ops=("create", "list", "update", "delete"),
        ),
        Resource(
            "backup",
            "A snapshot of a cluster that can be restored into a new cluster.",
            (
                ref("cluster_id", "cluster", "Cluster backed up.", req=True, immut=True, filt=True),
                enum(
                    "kind", ("automatic", "manual"), "How the backup was made.", ro=True, filt=True
                ),
                integer("size_gb", "Size.", ro=True),
                enum("status", ("pending", "completed", "failed"), "Backup status.", ro=True),
                s("label", "Label for manual backups."),
            ),
            ops=("create", "get", "list", "delete"),
        ),
    ),
    actions=(
        Action(
            "restore_backup",
            "backup",
            "Restore a backup",
            "Creates a new cluster from a backup; the source cluster is untouched.",
            params=(s("new_cluster_name", "Name of the restored cluster.", req=True),),
            returns=(
                s("cluster_id", "ID of the new cluster.", req=True),
                enum("status", ("provisioning",), "Status of the new cluster.", req=True),
            ),
            verb="restore",
        ),
        Action(
            "resize_cluster",
            "cluster",
            "Resize a cluster",
            "Changes instance size or storage with a rolling restart.",
            params=(
                enum("size", ("small", "medium", "large", "xlarge"), "New size."),
                integer("storage_gb", "New storage; can only grow."),
            ),
            verb="resize",
        ),
        Action(
            "run_query",
            "cluster",
            "Run a read-only query",
            "Runs one read-only SQL statement on the primary and returns at most 500 rows.",
            params=(
                s("database", "Database name.", req=True),
                s("sql", "SELECT statement.", req=True),
            ),
            returns=(
                arr("columns", s("column", "Column name."), "Column names.", req=True),
                arr(
                    "rows",
                    arr("row", s("cell", "Value as text."), "One row."),
                    "Result rows.",
                    req=True,
                ),
                integer("row_count", "Rows returned.", req=True),
            ),
            verb="query",
            read_only=True,
        ),
    ),
)

SERVICES: tuple[Service, ...] = (ISSUE_TRACKER, CODE_HOSTING, DB_PLATFORM)
