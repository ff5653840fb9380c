//! Translation catalog: English text → translated text, per language.

use super::Language;

type Table = &'static [(&'static str, &'static str)];

const ZH_HANS: Table = &[
    ("Invalid request", "请求无效"),
    ("Malformed JSON body", "请求体不是合法的 JSON"),
    ("Request body is too large", "请求体过大"),
    ("Invalid authentication credentials", "身份验证凭据无效"),
    ("Permission denied", "权限不足"),
    ("A Workspace is required", "需要指定工作区"),
    ("Resource not found", "资源不存在"),
    ("Method not allowed", "不支持该请求方法"),
    (
        "The request conflicts with the current state",
        "请求与当前状态冲突",
    ),
    (
        "Too many requests, please retry later",
        "请求过于频繁，请稍后重试",
    ),
    ("Not available in this edition", "当前版本不支持此功能"),
    ("Unsupported language", "不支持的语言"),
    ("Invalid API key settings", "API 密钥设置无效"),
    ("The provider still has models", "该模型供应商下仍有模型"),
    ("A default pipeline already exists", "已存在默认流水线"),
    (
        "The pipeline is used by bot routes",
        "该流水线正被机器人路由使用",
    ),
    (
        "The session is busy with a running task",
        "该会话正在执行任务",
    ),
    ("The model test failed", "模型测试失败"),
    ("The upstream service failed", "上游服务出错"),
    ("Service unavailable", "服务不可用"),
    ("Internal server error", "服务器内部错误"),
    (
        "The Workspace owner cannot be changed or removed",
        "工作区所有者不能被修改或移除",
    ),
    ("Invalid or expired invitation", "邀请无效或已过期"),
    ("Invalid plugin package", "插件包无效"),
    (
        "This install source is not available on this host",
        "此主机不支持该安装来源",
    ),
    (
        "Stdio MCP servers are disabled on this instance",
        "此实例已禁用 stdio MCP 服务器",
    ),
    (
        "This command is not allowed for stdio MCP servers",
        "此命令不允许用于 stdio MCP 服务器",
    ),
    ("MCP server not found", "MCP 服务器不存在"),
    ("The MCP server is not connected", "MCP 服务器未连接"),
    ("Invalid username or password", "用户名或密码错误"),
    ("Authentication required", "需要身份验证"),
    ("No such endpoint", "接口不存在"),
    ("The system is already initialized", "系统已初始化"),
    (
        "Too many failed logins, please retry later",
        "登录失败次数过多，请稍后重试",
    ),
    (
        "The request failed, please try again later.",
        "请求失败，请稍后重试。",
    ),
    (
        "You are sending messages too fast, please slow down.",
        "您发送消息太快了，请稍后再试。",
    ),
];

const ZH_HANT: Table = &[
    ("Invalid request", "請求無效"),
    ("Malformed JSON body", "請求內容不是合法的 JSON"),
    ("Request body is too large", "請求內容過大"),
    ("Invalid authentication credentials", "身分驗證憑據無效"),
    ("Permission denied", "權限不足"),
    ("Resource not found", "資源不存在"),
    (
        "Too many requests, please retry later",
        "請求過於頻繁，請稍後重試",
    ),
    ("Unsupported language", "不支援的語言"),
    ("Internal server error", "伺服器內部錯誤"),
    (
        "The request failed, please try again later.",
        "請求失敗，請稍後重試。",
    ),
    (
        "You are sending messages too fast, please slow down.",
        "您發送訊息太快了，請稍後再試。",
    ),
];

const JA_JP: Table = &[
    ("Invalid request", "無効なリクエストです"),
    ("Malformed JSON body", "JSON の形式が正しくありません"),
    ("Request body is too large", "リクエストが大きすぎます"),
    ("Invalid authentication credentials", "認証情報が無効です"),
    ("Permission denied", "権限がありません"),
    ("Resource not found", "リソースが見つかりません"),
    (
        "Too many requests, please retry later",
        "リクエストが多すぎます。しばらくしてから再試行してください",
    ),
    ("Unsupported language", "サポートされていない言語です"),
    ("Internal server error", "サーバー内部エラー"),
    (
        "The request failed, please try again later.",
        "リクエストに失敗しました。しばらくしてから再試行してください。",
    ),
    (
        "You are sending messages too fast, please slow down.",
        "メッセージの送信が速すぎます。少し間を空けてください。",
    ),
];

pub(super) fn lookup(lang: Language, english: &str) -> Option<&'static str> {
    let table: Table = match lang {
        Language::ZhHans => ZH_HANS,
        Language::ZhHant => ZH_HANT,
        Language::JaJp => JA_JP,
        _ => return None,
    };
    table.iter().find(|(en, _)| *en == english).map(|(_, t)| *t)
}
